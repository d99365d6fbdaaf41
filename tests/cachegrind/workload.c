/* memsub — a small deterministic program for the cachegrind agreement test
 * (tests/cachegrind/agreement.sh). It makes misaligned and line-crossing loads and stores and
 * read-modify-writes over a buffer larger than the test's 32 KiB D1, with a fixed pseudo-random
 * sequence (no time, no environment, no allocation after start-up), so valgrind's lackey and
 * cachegrind see the same data references. */
#include <stdint.h>
#include <string.h>

#define BUFFER_BYTES (256u * 1024u)

_Alignas(64) static unsigned char buffer[BUFFER_BYTES + 64]; /* line-aligned */
static volatile uint64_t result; /* keeps the loads live; the exit status stays 0 */

static uint32_t next_random(uint32_t* state) {
    /* xorshift32 */
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

/* volatile accesses through pointer casts keep the compiler from merging or removing them;
 * unaligned 4- and 8-byte accesses are fine on x86-64, the platform the test runs on. */
static void store_u64(unsigned char* p, uint64_t v) {
    *(volatile uint64_t*)p = v;
}
static uint64_t load_u64(const unsigned char* p) {
    return *(const volatile uint64_t*)p;
}
/* `add [m], r`: one read-modify-write instruction (lackey's M record) */
static void add_u32(unsigned char* p, uint32_t v) {
    __asm__ volatile("addl %1, %0" : "+m"(*(uint32_t*)p) : "r"(v));
}
/* a load and a store of the same bytes by two instructions (lackey's L then S) */
static void increment_u32(unsigned char* p) {
    *(volatile uint32_t*)p += 1u;
}

int main(void) {
    uint32_t state = 2463534242u;
    uint64_t sum = 0;
    /* a streaming pass with accesses at offsets 60 of every line: each 8-byte access crosses */
    for (uint32_t i = 0; i + 64 < BUFFER_BYTES; i += 64) store_u64(buffer + i + 60, i);
    for (uint32_t round = 0; round < 20000; ++round) {
        const uint32_t r = next_random(&state);
        const uint32_t offset = r % (BUFFER_BYTES / 4); /* hot quarter, misaligned offsets */
        switch (r >> 30) {
        case 0:
            sum += load_u64(buffer + offset);
            break;
        case 1:
            store_u64(buffer + offset, sum);
            break;
        case 2:
            add_u32(buffer + offset, r);
            add_u32(buffer + (offset | 63u) - 1u, 1u); /* crosses a line boundary */
            break;
        default:
            increment_u32(buffer + offset);
            sum += load_u64(buffer + (offset | 63u) - 3u); /* crosses a line boundary */
            break;
        }
    }
    result = sum;
    return 0;
}
