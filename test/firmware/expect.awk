# SPDX-License-Identifier: MIT
# test/firmware/expect.awk -- the line of test/firmware/expected.txt that
# applies to one scenario on one image: "STATUS STOP FRAMES..." (or "n/a
# WHY..." where the scenario is not booted on that image).
#
#   awk -v s=SCENARIO -v names=" NAME ... " -f expect.awk expected.txt
#
# names: the words a selector may use for the image (the suite, its
# compiler, the architecture, the board, the variant, the image, who
# wrote the .sframe), each with a space on both sides.  A selector is "*"
# or NAME[/NAME...], all of whose NAMEs must be in names; more names, more
# specific; the first of equals wins.  Used by test/firmware/run.sh and
# examples/matrix.sh.
/^[ \t]*(#|$)/ { next }
$1 != s { next }
{
	rank = 0
	if ($2 != "*") {
		n = split($2, part, "/")
		for (i = 1; i <= n; i++)
			if (index(names, " " part[i] " ") == 0) next
		rank = n
	}
	if (line == "" || rank > best) {
		best = rank
		line = $3
		for (i = 4; i <= NF; i++) line = line " " $i
	}
}
END { if (line != "") print line }
