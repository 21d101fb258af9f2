// SPDX-License-Identifier: GPL-2.0-or-later
/* crc32: table-driven, reflected polynomial 0xEDB88320. */
#include <config.h>

#include <pthread.h>

#include "crc32.h"

static uint32_t crc32_table[256];
static pthread_once_t crc32_once = PTHREAD_ONCE_INIT;

static void crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc32_table[i] = c;
	}
}

uint32_t crc32_update(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	pthread_once(&crc32_once, crc32_init);
	crc = ~crc;
	while (n--)
		crc = crc32_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
