# funclen.awk - the length of every function defined in C files written in
# this tree's style: a definition's name line starts at column 0 and its
# body's opening and closing braces stand alone at column 0 (as in every
# file of ini/, stack/, timers/, loadbal/, mgs/ and tools/).  Prints one
# line per function: "LINES FILE:LINE NAME", LINES counted from the name
# line to the closing brace, as ctags' end field counts them.
FNR == 1 { cand = 0; inbody = 0 }
!inbody && /^[A-Za-z_][A-Za-z0-9_ \t*]*\(/ {
    cand = FNR
    name = $0; sub(/\(.*/, "", name)
    n = split(name, w, /[ \t*]+/); name = w[n]
}
# A declaration or a one-line definition ends the candidate.
!inbody && /^[A-Za-z_].*[;}]$/ && !/\)$/ { cand = 0 }
/^\{/ && !inbody && cand { inbody = 1; start = cand; next }
/^\}/ && inbody { print FNR - start + 1, FILENAME ":" start, name; inbody = 0; cand = 0 }
