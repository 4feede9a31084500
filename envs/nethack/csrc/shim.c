/*
 * evolve's preload shim for NetHack 3.6 (envs/nethack, docs/nethack.md).
 *
 * Loaded with LD_PRELOAD into a private, non-setgid copy of the game binary,
 * it makes a game a pure function of its seed:
 *
 *   - fopen("/dev/urandom") returns an in-memory stream of 64 bytes drawn
 *     from EVOLVE_NH_SEED (a decimal uint64) with SplitMix64 (Steele, Lea and
 *     Flood 2014), continuing the sequence at each open: the game opens the
 *     device six times and reads 8 bytes each (core RNG, display RNG, and
 *     re-seeds), so every byte it reads comes from the seed.
 *   - time() returns EVOLVE_NH_TIME (seconds since the epoch; evolve passes
 *     1704888000, 2024-01-10 12:00:00 UTC, with TZ=UTC): not a full or new
 *     moon, not Friday the 13th, daytime, whatever the real clock says.
 *   - sleep, usleep and napms return at once: delays only slow the screen.
 *   - Before each read of a key from standard input (getc, fgetc, read of
 *     fd 0) it appends the marker ESC ] 7717 ; w BEL to stdout and flushes
 *     it (one write for the screen and the marker), so the player knows the game has drawn everything and waits for
 *     a key; the player removes the marker from the stream. A read of fd 0
 *     made inside getc or fgetc (where the C library's own call to read is
 *     interposed too, as with macOS's flat namespace) is not marked again.
 *   - If EVOLVE_NH_SHIM_LOG names a file, it appends "loaded" to it when
 *     the shim is loaded and "urandom" at each open of /dev/urandom it
 *     answers: evolve refuses a game whose shim did not load or did not
 *     seed it, rather than play an unseeded game.
 *
 * Build (Linux): cc -shared -fPIC -O2 -o shim.so shim.c -ldl
 * Build (macOS, loaded with DYLD_INSERT_LIBRARIES and
 * DYLD_FORCE_FLAT_NAMESPACE=1): cc -dynamiclib -O2 -o shim.dylib shim.c
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t sm_state;
static int sm_init;

static uint64_t splitmix64(void) {
	uint64_t z = (sm_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void seed_init(void) {
	if (sm_init)
		return;
	const char *s = getenv("EVOLVE_NH_SEED");
	sm_state = s ? strtoull(s, NULL, 10) : 0;
	sm_init = 1;
}

/* note appends line to the file EVOLVE_NH_SHIM_LOG names, if any. */
static void note(const char *line) {
	const char *p = getenv("EVOLVE_NH_SHIM_LOG");
	if (!p)
		return;
	int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	ssize_t n = write(fd, line, strlen(line));
	(void)n;
	close(fd);
}

__attribute__((constructor)) static void shim_loaded(void) { note("loaded\n"); }

/* in_stdio counts the getc and fgetc calls in progress (the game is
 * single-threaded): their own reads of fd 0 are not marked again. */
static int in_stdio;

static const char marker[] = "\033]7717;w\007";

static void mark_wait(void) {
	/* The marker goes through stdout's buffer, so the screen's output and
	 * the marker leave in one write (one wake-up of the player per key,
	 * not two); an unbuffered stdout writes them one after the other. */
	fwrite(marker, 1, sizeof marker - 1, stdout);
	fflush(stdout);
}

FILE *fopen(const char *path, const char *mode) {
	static FILE *(*real)(const char *, const char *);
	if (!real)
		real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	if (path && strcmp(path, "/dev/urandom") == 0) {
		seed_init();
		/* 64 bytes per open: more than the 8 the game reads. fmemopen
		 * needs a buffer that outlives the stream; it is never freed
		 * (six opens per game). */
		unsigned char *buf = malloc(64);
		if (!buf)
			return NULL;
		for (int i = 0; i < 8; i++) {
			uint64_t v = splitmix64();
			memcpy(buf + 8 * i, &v, 8);
		}
		note("urandom\n");
		return fmemopen(buf, 64, "r");
	}
	return real(path, mode);
}

time_t time(time_t *t) {
	const char *s = getenv("EVOLVE_NH_TIME");
	time_t v = s ? (time_t)strtoll(s, NULL, 10) : (time_t)1704888000;
	if (t)
		*t = v;
	return v;
}

unsigned int sleep(unsigned int s) { (void)s; return 0; }
int usleep(useconds_t u) { (void)u; return 0; }
int napms(int ms) { (void)ms; return 0; }

int getc(FILE *f) {
	static int (*real)(FILE *);
	if (!real)
		real = (int (*)(FILE *))dlsym(RTLD_NEXT, "getc");
	if (f == stdin)
		mark_wait();
	in_stdio++;
	int c = real(f);
	in_stdio--;
	return c;
}

int fgetc(FILE *f) {
	static int (*real)(FILE *);
	if (!real)
		real = (int (*)(FILE *))dlsym(RTLD_NEXT, "fgetc");
	if (f == stdin)
		mark_wait();
	in_stdio++;
	int c = real(f);
	in_stdio--;
	return c;
}

ssize_t read(int fd, void *buf, size_t n) {
	static ssize_t (*real)(int, void *, size_t);
	if (!real)
		real = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (fd == 0 && !in_stdio)
		mark_wait();
	return real(fd, buf, n);
}
