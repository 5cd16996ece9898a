# loadbal/: the INI scheduling policies (loadbal.h), header only.  They
# depend on nothing of the tree: their users pass plain values.
$(OBJ)/loadbal/%.o: INC = -Iloadbal
