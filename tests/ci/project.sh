# shellcheck shell=bash
# The jobs are single-quoted scripts for the sandbox; the sourcing files use them:
# shellcheck disable=SC2016,SC2034
# The CI jobs of the ci suite (tests/integration/ci.sh) and of tests/ci/timings.sh, written into a
# checkout: a small C project with a configure script that probes the compiler and a Makefile
# that builds in parallel and runs its tests (make check), the sanitizer and debugger programs,
# and a Rust crate without dependencies. No network: everything is generated here.
#
# ci_project DIR: write the project into DIR (which exists).
ci_project() {
	local d=$1
	mkdir -p "$d/src" "$d/tests" "$d/rust/src"

	# configure: what an autoconf script does, in a few lines of sh: find a compiler, check that
	# it works and what it accepts, write config.h and config.mk.
	cat >"$d/configure" <<'EOF'
#!/bin/sh
# configure: probe the C compiler and write config.h and config.mk
prefix=/usr/local
for a in "$@"; do
	case $a in
	--prefix=*) prefix=${a#--prefix=} ;;
	*) echo "configure: unknown option $a" >&2; exit 2 ;;
	esac
done
tmp=conftest.$$
trap 'rm -f $tmp $tmp.c $tmp.o' EXIT
: "${CC:=}"
printf 'checking for a C compiler... '
for c in $CC cc gcc clang; do
	command -v "$c" >/dev/null 2>&1 && CC=$c && break
done
[ -n "$CC" ] || { echo no; exit 1; }
echo "$CC"
printf 'checking whether the C compiler works... '
printf 'int main(void) { return 0; }\n' >$tmp.c
if $CC -o $tmp $tmp.c 2>/dev/null && ./$tmp; then echo yes; else echo no; exit 1; fi
try_flag() { # FLAG: does the compiler accept FLAG?
	printf 'checking whether %s accepts %s... ' "$CC" "$1"
	if $CC -Werror "$1" -c -o $tmp.o $tmp.c 2>/dev/null; then echo yes; CFLAGS="$CFLAGS $1"; else echo no; fi
}
CFLAGS="-O2 -g"
try_flag -Wall
try_flag -Wextra
try_flag -fstack-protector-strong
define() { echo "#define $1 $2" >>config.h.new; }
: >config.h.new
for h in stdint.h inttypes.h sys/random.h; do
	printf 'checking for %s... ' "$h"
	printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >$tmp.c
	if $CC -c -o $tmp.o $tmp.c 2>/dev/null; then
		echo yes; define "HAVE_$(echo "$h" | tr a-z./ A-Z__)" 1
	else echo no; fi
done
printf 'checking for __builtin_mul_overflow... '
printf 'int main(void) { long r; return __builtin_mul_overflow(3L, 4L, &r) || r != 12; }\n' >$tmp.c
if $CC -o $tmp $tmp.c 2>/dev/null && ./$tmp; then echo yes; define HAVE_BUILTIN_MUL_OVERFLOW 1; else echo no; fi
printf 'checking the size of long... '
printf '#include <stdio.h>\nint main(void) { printf("%%zu\\n", sizeof(long)); return 0; }\n' >$tmp.c
$CC -o $tmp $tmp.c && size=$(./$tmp) && echo "$size" && define SIZEOF_LONG "$size"
define PACKAGE_VERSION '"1.2.0"'
mv config.h.new config.h
printf 'CC = %s\nCFLAGS = %s\nprefix = %s\n' "$CC" "$CFLAGS" "$prefix" >config.mk
echo "configure: wrote config.h and config.mk"
EOF
	chmod 0755 "$d/configure"

	cat >"$d/Makefile" <<'EOF'
include config.mk
LIB_OBJ = src/lex.o src/eval.o src/fmt.o
all: calc
libcalc.a: $(LIB_OBJ)
	ar rcs $@ $(LIB_OBJ)
src/%.o: src/%.c src/calc.h config.h
	$(CC) $(CFLAGS) -I. -c -o $@ $<
calc: src/main.o libcalc.a
	$(CC) $(CFLAGS) -o $@ src/main.o libcalc.a
tests/test-calc: tests/test-calc.o libcalc.a
	$(CC) $(CFLAGS) -o $@ tests/test-calc.o libcalc.a
tests/%.o: tests/%.c src/calc.h config.h
	$(CC) $(CFLAGS) -I. -Isrc -c -o $@ $<
check: tests/test-calc calc
	./tests/test-calc
	test "$$(echo '2 * (3 + 4) - 5' | ./calc)" = 9
	@echo "make check: all tests passed"
install: calc
	install -D -m 0755 calc $(DESTDIR)$(prefix)/bin/calc
clean:
	rm -f calc libcalc.a src/*.o tests/*.o tests/test-calc
.PHONY: all check install clean
EOF

	cat >"$d/src/calc.h" <<'EOF'
#pragma once
#include "config.h"
#include <stddef.h>
enum tok_kind { TOK_NUM, TOK_OP, TOK_LPAREN, TOK_RPAREN, TOK_END, TOK_BAD };
struct tok {
	enum tok_kind kind;
	long num;
	char op;
};
/* The next token of *s, advancing *s past it. */
struct tok calc_lex(const char **s);
/* Evaluate an infix expression of + - * / and parentheses; 0 or -1 (error in *err). */
int calc_eval(const char *expr, long *ret, const char **err);
/* Format v into buf (size n) with thousands separators. */
char *calc_fmt(long v, char *buf, size_t n);
EOF
	cat >"$d/src/lex.c" <<'EOF'
#include "calc.h"
#include <ctype.h>
#include <stdlib.h>

struct tok calc_lex(const char **s)
{
	struct tok t = { .kind = TOK_BAD };
	char *end;

	while (isspace((unsigned char)**s))
		(*s)++;
	if (!**s) {
		t.kind = TOK_END;
	} else if (isdigit((unsigned char)**s)) {
		t.kind = TOK_NUM;
		t.num = strtol(*s, &end, 10);
		*s = end;
	} else if (**s == '(' || **s == ')') {
		t.kind = **s == '(' ? TOK_LPAREN : TOK_RPAREN;
		(*s)++;
	} else if (**s == '+' || **s == '-' || **s == '*' || **s == '/') {
		t.kind = TOK_OP;
		t.op = *(*s)++;
	}
	return t;
}
EOF
	cat >"$d/src/eval.c" <<'EOF'
#include "calc.h"

struct parser {
	const char *s;
	struct tok t;
	const char *err;
};

static void next(struct parser *p)
{
	p->t = calc_lex(&p->s);
}

static long expr(struct parser *p);

static long primary(struct parser *p)
{
	long v = 0;

	if (p->t.kind == TOK_NUM) {
		v = p->t.num;
		next(p);
	} else if (p->t.kind == TOK_LPAREN) {
		next(p);
		v = expr(p);
		if (p->t.kind != TOK_RPAREN)
			p->err = "missing )";
		next(p);
	} else if (p->t.kind == TOK_OP && p->t.op == '-') {
		next(p);
		v = -primary(p);
	} else {
		p->err = "unexpected token";
	}
	return v;
}

static long term(struct parser *p)
{
	long v = primary(p), r;

	while (!p->err && p->t.kind == TOK_OP && (p->t.op == '*' || p->t.op == '/')) {
		char op = p->t.op;
		next(p);
		r = primary(p);
		if (op == '/' && r == 0) {
			p->err = "division by zero";
			return 0;
		}
#ifdef HAVE_BUILTIN_MUL_OVERFLOW
		if (op == '*' && __builtin_mul_overflow(v, r, &v))
			p->err = "overflow";
		else if (op == '/')
			v /= r;
#else
		v = op == '*' ? v * r : v / r;
#endif
	}
	return v;
}

static long expr(struct parser *p)
{
	long v = term(p);

	while (!p->err && p->t.kind == TOK_OP && (p->t.op == '+' || p->t.op == '-')) {
		char op = p->t.op;
		next(p);
		v = op == '+' ? v + term(p) : v - term(p);
	}
	return v;
}

int calc_eval(const char *s, long *ret, const char **err)
{
	struct parser p = { .s = s };
	long v;

	next(&p);
	v = expr(&p);
	if (!p.err && p.t.kind != TOK_END)
		p.err = "trailing input";
	if (p.err) {
		*err = p.err;
		return -1;
	}
	*ret = v;
	return 0;
}
EOF
	cat >"$d/src/fmt.c" <<'EOF'
#include "calc.h"
#include <stdio.h>
#include <string.h>

char *calc_fmt(long v, char *buf, size_t n)
{
	char digits[32];
	size_t len, i, o = 0;
	int neg = v < 0;

	snprintf(digits, sizeof(digits), "%lu", neg ? -(unsigned long)v : (unsigned long)v);
	len = strlen(digits);
	if (neg && o + 1 < n)
		buf[o++] = '-';
	for (i = 0; i < len && o + 1 < n; i++) {
		if (i && (len - i) % 3 == 0 && o + 2 < n)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}
EOF
	cat >"$d/src/main.c" <<'EOF'
#include "calc.h"
#include <stdio.h>

int main(void)
{
	char line[1024];
	const char *err;
	long v;
	int rc = 0;

	while (fgets(line, sizeof(line), stdin)) {
		if (calc_eval(line, &v, &err) < 0) {
			fprintf(stderr, "calc: %s\n", err);
			rc = 1;
			continue;
		}
		printf("%ld\n", v);
	}
	return rc;
}
EOF
	cat >"$d/tests/test-calc.c" <<'EOF'
#include "calc.h"
#include <stdio.h>
#include <string.h>

static int failed;

static void eq(const char *expr, long want)
{
	const char *err = NULL;
	long got = 0;

	if (calc_eval(expr, &got, &err) < 0 || got != want) {
		printf("FAIL %s: got %ld (%s), want %ld\n", expr, got, err ? err : "-", want);
		failed++;
	}
}

static void bad(const char *expr, const char *want)
{
	const char *err = NULL;
	long got;

	if (calc_eval(expr, &got, &err) == 0 || strcmp(err, want)) {
		printf("FAIL %s: want error %s\n", expr, want);
		failed++;
	}
}

int main(void)
{
	char buf[32];

	eq("1 + 2 * 3", 7);
	eq("(1 + 2) * 3", 9);
	eq("-4 + 10 / 3", -1);
	eq("2 * -(3 - 5)", 4);
	bad("1 / 0", "division by zero");
	bad("(1 + 2", "missing )");
	bad("1 2", "trailing input");
	bad("9223372036854775807 * 2", "overflow");
	if (strcmp(calc_fmt(-1234567, buf, sizeof(buf)), "-1,234,567")) {
		printf("FAIL calc_fmt: %s\n", buf);
		failed++;
	}
	printf("test-calc: %d of 10 failed (version %s, long of %d bytes)\n", failed,
	       PACKAGE_VERSION, SIZEOF_LONG);
	return failed != 0;
}
EOF

	# LeakSanitizer's report: a planted leak, and a clean program beside it.
	printf '%s\n' '#include <stdlib.h>' '#include <string.h>' 'static char *keep;' \
		'int main(void) { keep = malloc(4096); memset(keep, 1, 4096); keep = 0; return 0; }' \
		>"$d/tests/leak.c"
	printf '%s\n' '#include <stdlib.h>' \
		'int main(void) { char *p = malloc(64); p[0] = 1; free(p); return 0; }' >"$d/tests/clean.c"
	# A crash for gdb.
	printf '%s\n' 'static void boom(volatile int *p) { *p = 42; }' \
		'int main(void) { boom(0); return 0; }' >"$d/tests/crash.c"

	ci_rust_crate "$d/rust"
	printf '%s\n' config.h config.mk '*.o' '*.a' calc tests/test-calc /build/ /rust/target/ '*.log' \
		>"$d/.gitignore"
}

# ci_rust_crate DIR: a library and a program, with unit tests, and no dependencies.
ci_rust_crate() {
	local d=$1
	cat >"$d/Cargo.toml" <<'EOF'
[package]
name = "ledgerstat"
version = "0.1.0"
edition = "2021"

[dependencies]
EOF
	# The lock file cargo writes for it, committed as a program's is.
	printf '%s\n' '# This file is automatically @generated by Cargo.' \
		'# It is not intended for manual editing.' 'version = 3' '' '[[package]]' \
		'name = "ledgerstat"' 'version = "0.1.0"' >"$d/Cargo.lock"
	cat >"$d/src/lib.rs" <<'EOF'
//! Balances over a ledger of amounts, with its parser.
use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub account: String,
    pub cents: i64,
}

#[derive(Debug, PartialEq)]
pub enum ParseError {
    Fields(usize),
    Amount(usize, String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ParseError::Fields(l) => write!(f, "line {}: want ACCOUNT AMOUNT", l),
            ParseError::Amount(l, a) => write!(f, "line {}: bad amount {:?}", l, a),
        }
    }
}

pub fn parse_amount(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let mut it = s.splitn(2, '.');
    let whole: i64 = it.next()?.parse().ok()?;
    let frac = match it.next() {
        None => 0,
        Some(f) if f.len() == 2 => f.parse::<i64>().ok()?,
        Some(f) if f.len() == 1 => f.parse::<i64>().ok()? * 10,
        _ => return None,
    };
    let v = whole.checked_mul(100)?.checked_add(frac)?;
    Some(if neg { -v } else { v })
}

pub fn parse(text: &str) -> Result<Vec<Entry>, ParseError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() != 2 {
                return Err(ParseError::Fields(i + 1));
            }
            let c = parse_amount(f[1]).ok_or_else(|| ParseError::Amount(i + 1, f[1].to_string()))?;
            Ok(Entry { account: f[0].to_string(), cents: c })
        })
        .collect()
}

pub fn balances(entries: &[Entry]) -> BTreeMap<&str, i64> {
    let mut m = BTreeMap::new();
    for e in entries {
        *m.entry(e.account.as_str()).or_insert(0) += e.cents;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("12.50"), Some(1250));
        assert_eq!(parse_amount("-0.5"), Some(-50));
        assert_eq!(parse_amount("1.234"), None);
    }

    #[test]
    fn ledger() {
        let e = parse("# x\na 1.00\nb 2\na -0.25\n").unwrap();
        assert_eq!(balances(&e)["a"], 75);
        assert_eq!(parse("a"), Err(ParseError::Fields(1)));
    }
}
EOF
	cat >"$d/src/main.rs" <<'EOF'
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    match ledgerstat::parse(&s) {
        Ok(e) => {
            for (a, c) in ledgerstat::balances(&e) {
                println!("{} {}.{:02}", a, c / 100, (c % 100).abs());
            }
        }
        Err(e) => {
            eprintln!("{}", e);
            std::process::exit(1);
        }
    }
}
EOF
}

# The jobs' scripts, run from the checkout (bare or under corral). Each prints KEY=VALUE lines.
# CI_CARGO_TARGET: where cargo's build cache is (CARGO_TARGET_DIR).
CI_JOB_BUILD='./configure >configure.log && echo configure=$? &&
	make -s -j2 >make.log 2>&1 && echo make=$? &&
	make -s check >check.log 2>&1 && echo check=$?
	grep -h "^test-calc:" check.log | sed "s/^/# /"'
CI_JOB_CARGO='cd rust && cargo build --release --offline 2>../cargo.log && echo cargo_build=$? &&
	cargo test --release --offline -q >../cargo-test.log 2>>../cargo.log && echo cargo_test=$?
	echo "ledger=$(printf "a 1.50\na -0.25\nb 2\n" | "$CARGO_TARGET_DIR"/release/ledgerstat | tr "\n" " ")"
	echo compiled=$(grep -c "Compiling ledgerstat" ../cargo.log)'
CI_JOB_ASAN='mkdir -p build &&
	gcc -fsanitize=address -g -O0 -o build/leak tests/leak.c &&
	gcc -fsanitize=address -g -O0 -o build/clean tests/clean.c && echo asan_built=1
	LSAN_OPTIONS=exitcode=23 ./build/leak 2>build/leak.log; echo leak_rc=$?
	echo leak_report=$(grep -c "ERROR: LeakSanitizer: detected memory leaks" build/leak.log)
	echo leak_4096=$(grep -c "Direct leak of 4096 byte" build/leak.log)
	echo under_ptrace=$(grep -c "does not work under ptrace" build/leak.log)
	LSAN_OPTIONS=exitcode=23 ./build/clean; echo clean_rc=$?'
CI_JOB_GDB='mkdir -p build && gcc -g -O0 -o build/crash tests/crash.c &&
	gdb -q -batch -ex run -ex bt build/crash >build/gdb.log 2>&1; echo gdb_rc=$?
	echo sigsegv=$(grep -c SIGSEGV build/gdb.log)
	echo frame0=$(grep -c "^#0 .* boom (p=0x0) at tests/crash.c:1" build/gdb.log)
	echo frame1=$(grep -c "^#1 .* main () at tests/crash.c:2" build/gdb.log)'
