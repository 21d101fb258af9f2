// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for util_escape and util_fputs_escaped: what a terminal would
 * act on never leaves rtsoak raw, and a truncated escape never ends on half
 * a UTF-8 character.  And util_read_fd, the one file reader: whole files
 * whatever the size hint says, -EFBIG past the limit, or cut at it. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <malloc.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
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

/* util_read_fd of len bytes of a pattern, from a temporary file (a size
 * hint as given) or, with hint (size_t)-1, from a pipe (no hint at all).
 * Returns what it returned; *same: the text is the pattern's first bytes
 * (on an error: *out was left NULL). */
static ssize_t read_back(size_t len, size_t hint, size_t max, bool cut, bool *same)
{
	char *data = malloc(len + 1), *text = NULL, path[] = "/tmp/test_util-XXXXXX";
	int fd = -1, p[2];
	ssize_t got = -EIO;

	*same = false;
	if (!data)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		data[i] = (char)('a' + i % 26);
	if (hint == (size_t)-1) {
		/* A pipe holds 64 KiB: enough for the sizes below, written before reading. */
		if (pipe(p) == 0) {
			if (write(p[1], data, len) == (ssize_t)len) {
				close(p[1]);
				got = util_read_fd(p[0], 0, max, cut, &text);
			} else {
				close(p[1]);
			}
			close(p[0]);
		}
	} else if ((fd = mkstemp(path)) >= 0) {
		unlink(path);
		if (write(fd, data, len) == (ssize_t)len && lseek(fd, 0, SEEK_SET) == 0)
			got = util_read_fd(fd, hint, max, cut, &text);
		close(fd);
	}
	if (got >= 0)
		*same = text && !memcmp(text, data, (size_t)got) && text[got] == '\0';
	else
		*same = !text; /* an error leaves *out NULL */
	free(text);
	free(data);
	return got;
}

/* FIPS 180-4's examples: empty, one block, and the 56-byte message whose
 * padding takes a second block. */
/* util_grow: element n is always writable after the call (the allocator's
 * usable size, so that ASan builds check it too), the array is reallocated
 * only at powers of two, and a capacity that would overflow is -ENOMEM with
 * the array untouched. */
static void test_grow(void)
{
	uint32_t *v = NULL;
	size_t bad = 0, ahead = 0;

	for (size_t n = 0; n < 100000; n++) {
		if (util_grow(&v, n, sizeof(*v))) {
			bad++;
			break;
		}
		bad += malloc_usable_size(v) < (n + 1) * sizeof(*v);
		v[n] = (uint32_t)n;
		if (n == 65536)
			ahead = malloc_usable_size(v) / sizeof(*v);
	}
	ok(!bad && v[99999] == 99999 && v[0] == 0, "grow_makes_room_for_every_appended_element");
	ok(ahead >= 131072, "grow_doubles_ahead_of_need (room for %zu at 65537)", ahead);
	uint32_t *keep = v;
	ok(util_grow(&v, 100001, sizeof(*v)) == 0 && v == keep,
	   "grow_between_powers_of_two_leaves_the_array_alone");
	ok(util_grow(&v, (SIZE_MAX >> 1) + 1, sizeof(*v)) == -ENOMEM && v == keep,
	   "grow_past_size_max_is_enomem_and_keeps_the_array");
	free(v);
}

static void test_sha256(void)
{
	static const struct {
		const char *in, *hex;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t d[32];
		char hex[65];

		sha256(v[i].in, strlen(v[i].in), d);
		for (unsigned k = 0; k < 32; k++)
			snprintf(hex + 2 * k, 3, "%02x", d[k]);
		ok(!strcmp(hex, v[i].hex), "sha256 of a %zu-byte message: %s", strlen(v[i].in),
		   hex);
	}
}

/* util_utf8_fix of in gives want (same length), with `fixed` bytes masked. */
static int utf8_is(const char *in, const char *want, size_t fixed)
{
	char buf[64];
	size_t n = strlen(in);

	memcpy(buf, in, n + 1);
	size_t got = util_utf8_fix(buf, n);
	if (got != fixed || strcmp(buf, want)) {
		diag("util_utf8_fix gave '%s' (%zu masked), want '%s' (%zu)", buf, got, want,
		     fixed);
		return 0;
	}
	return 1;
}

/* The cases jansson refuses (its utf.c) each masked, the valid kept: then
 * json_string takes every result (an unchecked NULL from json_pack silently
 * dropped a --trace cause named after such a comm, issue 28). */
static void test_utf8(void)
{
	static const struct {
		const char *in, *want;
		size_t fixed;
		const char *name;
	} c[] = {
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0,
		  "utf8_keeps_valid_2_3_4_byte_characters" },
		/* a comm: 8 "a umlaut" cut to 15 bytes by the kernel */
		{ "\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3",
		  "\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4?", 1,
		  "utf8_masks_a_character_cut_at_the_end" },
		{ "a\xe2\x82z", "a??z", 2, "utf8_masks_a_character_cut_in_the_middle" },
		{ "\xa4x\xff\xfe", "?x??", 3, "utf8_masks_stray_continuations_and_ff_fe" },
		{ "\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf", "?????????", 9,
		  "utf8_masks_overlong_forms" },
		{ "\xed\xa0\x80", "???", 3, "utf8_masks_surrogates" },
		{ "\xf4\x90\x80\x80\xf5\x80", "??????", 6, "utf8_masks_code_points_above_10ffff" },
		{ "latin-1 \xe9t\xe9", "latin-1 ?t?", 2, "utf8_masks_latin_1" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int good = utf8_is(c[i].in, c[i].want, c[i].fixed);
		json_t *v = util_json_string(c[i].in);
		good = good && v && !strcmp(json_string_value(v), c[i].want);
		json_decref(v);
		ok(good, "%s", c[i].name);
	}
	json_t *o = json_object(), *a = json_array();
	ok(util_json_set(o, "a", NULL) == -1 && util_json_set(o, "b", json_integer(1)) == 0 &&
	       json_object_size(o) == 1 && util_json_push(a, NULL) == -1 && !json_array_size(a),
	   "json_set_and_push_fail_on_a_null_value");
	json_decref(o);
	json_decref(a);
}

int main(void)
{
	/* OSC 0 (window title), CSI 2J (clear screen), BEL, DEL, C1 CSI. */
	const char *evil = "a\x1b]0;t\x07\x1b[2J\x7f\xc2\x9b"
			   "b";
	const char *want = "a\\x1b]0;t\\x07\\x1b[2J\\x7f\\u009bb";

	tap_plan(36);
	test_utf8();
	test_sha256();
	test_grow();
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

	bool same;
	ssize_t got = read_back(10000, 10000, 1 << 20, false, &same);
	ok(got == 10000 && same, "read_fd_reads_a_file_of_the_size_hinted (%zd)", got);
	got = read_back(10000, 100, 1 << 20, false, &same);
	ok(got == 10000 && same, "read_fd_grows_past_a_hint_that_is_too_small (%zd)", got);
	got = read_back(20000, (size_t)-1, 1 << 20, false, &same);
	ok(got == 20000 && same, "read_fd_reads_a_pipe_without_a_hint (%zd)", got);
	got = read_back(0, 0, 100, false, &same);
	ok(got == 0 && same, "read_fd_reads_an_empty_file (%zd)", got);
	got = read_back(100, 100, 100, false, &same);
	ok(got == 100 && same, "read_fd_takes_exactly_max_bytes (%zd)", got);
	got = read_back(101, 100, 100, false, &same);
	ok(got == -EFBIG && same, "read_fd_refuses_one_byte_past_max (%zd)", got);
	got = read_back(20000, (size_t)-1, 5000, false, &same);
	ok(got == -EFBIG && same, "read_fd_refuses_a_pipe_past_max (%zd)", got);
	got = read_back(20000, (size_t)-1, 5000, true, &same);
	ok(got == 5000 && same, "read_fd_cut_keeps_the_first_max_bytes (%zd)", got);
	got = read_back(30, 0, 5000, true, &same);
	ok(got == 30 && same, "read_fd_cut_reads_a_short_file_whole (%zd)", got);
	return tap_done();
}
