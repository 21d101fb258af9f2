/* Unit tests for util_escape and util_fputs_escaped: what a terminal would
 * act on never leaves rtsoak raw, and a truncated escape never ends on half
 * a UTF-8 character. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util.h"

static int esc_is(const char *in, size_t len, const char *want)
{
	char buf[256];

	util_escape(in, buf, len);
	if (strcmp(buf, want))
		diag("util_escape(len %zu) gave '%s', want '%s'", len, buf, want);
	return !strcmp(buf, want);
}

static int stream_is(const char *in, const char *want)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	int same;

	if (!f)
		return 0;
	util_fputs_escaped(in, f);
	fclose(f);
	same = out && !strcmp(out, want);
	if (!same)
		diag("util_fputs_escaped gave '%s', want '%s'", out ? out : "(null)", want);
	free(out);
	return same;
}

int main(void)
{
	/* OSC 0 (window title), CSI 2J (clear screen), BEL, DEL, C1 CSI. */
	const char *evil = "a\x1b]0;t\x07\x1b[2J\x7f\xc2\x9b"
			   "b";
	const char *want = "a\\x1b]0;t\\x07\\x1b[2J\\x7f\\u009bb";

	tap_plan(11);
	ok(esc_is(evil, 256, want), "escape_turns_c0_del_and_c1_into_text");
	ok(esc_is("1\n2\t3\r", 256, "1\\n2\\t3\\r"), "escape_names_newline_tab_and_return");
	ok(esc_is("caf\xc3\xa9 \\ ok", 256, "caf\xc3\xa9 \\ ok"),
	   "escape_keeps_utf8_and_backslashes");
	ok(esc_is(NULL, 256, ""), "escape_of_null_is_empty");
	ok(esc_is("abcdef", 4, "abc"), "escape_truncates_to_the_buffer");
	ok(esc_is("ab\xc3\xa9z", 4, "ab"), "escape_never_ends_on_half_a_character");
	ok(esc_is("ab\xc3\xa9z", 5, "ab\xc3\xa9"), "escape_keeps_a_whole_character_that_fits");
	ok(esc_is("\xc3\xa9\xc2\x9b", 6, "\xc3\xa9"),
	   "escape_keeps_the_character_before_a_c1_escape_that_does_not_fit");
	ok(esc_is("a\x1b", 4, "a"), "escape_drops_an_escape_that_does_not_fit_whole");
	ok(stream_is(evil, want), "stream_escape_is_the_same_rule");
	char big[2000];
	memset(big, '\x1b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	util_fputs_escaped(big, f);
	fclose(f);
	ok(n == 4 * (sizeof(big) - 1) && !strchr(out, '\x1b'), "stream_escape_has_no_length_limit");
	free(out);
	return tap_done();
}
