# mgs/: the multigrain shared memory and the applications on it.
-include mgs/water/module.mk
