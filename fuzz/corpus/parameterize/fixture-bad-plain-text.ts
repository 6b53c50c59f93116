// covers: malformed input: plain English prose instead of code -> diagnostics, no panic, no nodes.
// expect: nodes [] edges []; at least one parse diagnostic, the first on line 3, column 8 (1-based: the word `read`, an "expected ;"-like error).
Please read the users file and create entities for every active user.
Then tell me how many there were, thanks!
