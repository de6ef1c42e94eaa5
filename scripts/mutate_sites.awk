# The mutation sites of C source files, for scripts/mutate.sh --random: every
# place on a code line where one plausible bug can be planted, one row each,
#
#   file <TAB> line <TAB> column <TAB> length <TAB> kind <TAB> replacement
#
# (column 1-based, length in bytes of the text replaced). Comments, string and
# character literals are masked before looking, and preprocessor lines (with
# their continuations) are skipped, so a site is always code. The kinds:
#   rel     a comparison one step off: < <=, > >=, == !=
#   logic   && for || and back
#   arith   binary + for -, - for +, += for -=, -= for +=
#   const   an integer literal plus or minus one (0 becomes 1)
#   negate  the condition of an if or while negated
#   drop    a whole statement on one line (a call, an assignment, break,
#           continue) replaced by an empty statement
# Which sites compile is not known here; the sampler builds each and counts
# only those that do. Plain POSIX awk (mawk runs it): the rows depend on the
# input alone, so the same tree gives the same sites, in file and line order.

function ident(c) { return c ~ /[A-Za-z0-9_]/ }

# The line with comments and literals blanked (same length), keeping the
# block-comment state across lines in `inblock`.
function mask(s,    out, i, c, d, n, q) {
	out = ""
	n = length(s)
	i = 1
	while (i <= n) {
		c = substr(s, i, 1)
		d = substr(s, i + 1, 1)
		if (inblock) {
			if (c == "*" && d == "/") { inblock = 0; out = out "  "; i += 2; continue }
			out = out " "; i++; continue
		}
		if (c == "/" && d == "*") { inblock = 1; out = out "  "; i += 2; continue }
		if (c == "/" && d == "/") { while (i <= n) { out = out " "; i++ } break }
		if (c == "\"" || c == "'") {
			q = c
			out = out c; i++
			while (i <= n) {
				c = substr(s, i, 1)
				if (c == "\\") { out = out "  "; i += 2; continue }
				if (c == q) break
				out = out " "; i++
			}
			if (i <= n) { out = out q; i++ }
			continue
		}
		out = out c; i++
	}
	return out
}

function site(col, len, kind, repl) {
	printf "%s\t%d\t%d\t%d\t%s\t%s\n", FILENAME, FNR, col, len, kind, repl
}

# The column of the ')' that closes the '(' at column p of m, or 0.
function closing(m, p,    depth, i, c) {
	depth = 0
	for (i = p; i <= length(m); i++) {
		c = substr(m, i, 1)
		if (c == "(") depth++
		else if (c == ")") { depth--; if (depth == 0) return i }
	}
	return 0
}

function operators(m, s,    i, n, c, d, p, e, prev) {
	n = length(m)
	for (i = 1; i <= n; i++) {
		c = substr(m, i, 1)
		d = substr(m, i + 1, 1)
		p = i > 1 ? substr(m, i - 1, 1) : ""
		e = substr(m, i + 2, 1)
		if (c == "&" && d == "&") { site(i, 2, "logic", "||"); i++; continue }
		if (c == "|" && d == "|") { site(i, 2, "logic", "&&"); i++; continue }
		if (c == "=" && d == "=") { site(i, 2, "rel", "!="); i++; continue }
		if (c == "!" && d == "=") { site(i, 2, "rel", "=="); i++; continue }
		if (c == "<" || c == ">") {
			if (d == c) { i++; if (e == "=") i++; continue }      # << >> <<= >>=
			if (c == ">" && p == "-") continue                    # ->
			if (d == "=") { site(i, 2, "rel", c); i++; continue }
			site(i, 1, "rel", c "=")
			continue
		}
		if (c == "+" || c == "-") {
			if (d == c) { i++; continue }                         # ++ --
			if (c == "-" && d == ">") { i++; continue }           # ->
			if (d == "=") { site(i, 2, "arith", (c == "+" ? "-" : "+") "="); i++; continue }
			prev = substr(m, 1, i - 1)
			sub(/[ \t]+$/, "", prev)
			if (prev ~ /(^|[^A-Za-z0-9_])(return|case|sizeof)$/)
				continue                                  # a sign, not a sum
			prev = substr(prev, length(prev), 1)
			if (prev != "" && (ident(prev) || prev == ")" || prev == "]"))
				site(i, 1, "arith", c == "+" ? "-" : "+")
		}
	}
}

function constants(m,    rest, off, tok, before, after, v, suf, hex, k, digits) {
	rest = m
	off = 0
	while (match(rest, /[0-9][0-9A-Fa-fxXuUlL]*/)) {
		tok = substr(rest, RSTART, RLENGTH)
		before = off + RSTART > 1 ? substr(m, off + RSTART - 1, 1) : ""
		after = substr(m, off + RSTART + RLENGTH, 1)
		if (!ident(before) && before != "." && after != "." && !ident(after)) {
			suf = tok
			sub(/^(0[xX][0-9A-Fa-f]+|[0-9]+)/, "", suf)
			digits = substr(tok, 1, length(tok) - length(suf))
			hex = digits ~ /^0[xX]/
			if (suf ~ /^[uUlL]*$/ && (hex ? length(digits) <= 10 : digits ~ /^[0-9]+$/ && length(digits) <= 15)) {
				if (hex) {
					v = 0
					for (k = 3; k <= length(digits); k++)
						v = v * 16 + index("0123456789abcdef", tolower(substr(digits, k, 1))) - 1
				} else {
					v = digits + 0
				}
				site(off + RSTART, length(digits), "const", sprintf(hex ? "0x%x" : "%d", v + 1))
				if (v > 0)
					site(off + RSTART, length(digits), "const", sprintf(hex ? "0x%x" : "%d", v - 1))
			}
		}
		off += RSTART + RLENGTH - 1
		rest = substr(rest, RSTART + RLENGTH)
	}
}

function conditions(m, s,    rest, off, p, q, kw) {
	rest = m
	off = 0
	while (match(rest, /(^|[^A-Za-z0-9_])(if|while)[ \t]*\(/)) {
		p = off + RSTART + RLENGTH - 1                       # the '('
		q = closing(m, p)
		if (q > p + 1)
			site(p, q - p + 1, "negate", "(!(" substr(s, p + 1, q - p - 1) "))")
		off += RSTART + RLENGTH - 1
		rest = substr(rest, RSTART + RLENGTH)
	}
}

function statement(m, t,    lead) {
	if (t !~ /;$/ || t ~ /^(return|static|const|struct|enum|union|typedef|extern|case|default|for|if|while|do|else|goto)([^A-Za-z0-9_]|$)/)
		return
	if (t !~ /^(break|continue);$/ && t !~ /^[A-Za-z_(*][^;]*(\(|[^=!<>]=[^=])/)
		return
	if (t ~ /^[A-Za-z_][A-Za-z0-9_]*[ \t*]+[A-Za-z_][A-Za-z0-9_]*[ \t]*(=|;|\[)/)
		return                                                # a declaration
	if (lastcode !~ /[;{}:]$/ && lastcode !~ /(^|[^A-Za-z0-9_])else$/ && lastcode !~ /\)$/)
		return
	lead = m
	sub(/[^ \t].*$/, "", lead)
	site(length(lead) + 1, length(m) - length(lead), "drop", ";")
}

FNR == 1 { inblock = 0; cont = 0; lastcode = "" }
{
	line = $0
	sub(/\r$/, "", line)
	if (cont) { cont = line ~ /\\$/; next }
	wasblock = inblock
	m = mask(line)
	t = m
	sub(/^[ \t]+/, "", t)
	sub(/[ \t]+$/, "", t)
	if (!wasblock && t ~ /^#/) { cont = line ~ /\\$/; next }
	if (t == "") next
	operators(m, line)
	constants(m)
	conditions(m, line)
	if (substr(m, length(m)) != " ")
		statement(m, t)
	else {
		mm = m; sub(/[ \t]+$/, "", mm); statement(mm, t)
	}
	lastcode = t
}
