/* api/clients.c: who a request comes from, behind trusted proxies or not (expected values
 * worked out by hand from the rule: the last X-Forwarded-For address that is not a proxy). */
#include "api/clients.h"

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

static struct sockaddr_in v4(const char *a)
{
    struct sockaddr_in s = {.sin_family = AF_INET};
    inet_pton(AF_INET, a, &s.sin_addr);
    return s;
}

static const char *resolve(const char *peer, const char *xff)
{
    static char out[64];
    struct sockaddr_in p = v4(peer);
    clients_resolve((struct sockaddr *)&p, xff, out, sizeof out);
    return out;
}

static void test_trusted_list(void)
{
    char err[200];
    CU_ASSERT(clients_set_trusted("", err, sizeof err));
    CU_ASSERT(clients_set_trusted("127.0.0.1, ::1,10.0.0.0/8,fd00::/8", err, sizeof err));
    const char *bad[] = {"127.0.0.1/33", "localhost", "10.0.0.0/",
                         "10.0.0.0/8x",  "::1/129",   "1.2.3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CU_ASSERT_FALSE(clients_set_trusted(bad[i], err, sizeof err));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not an address"));
    }
    /* A refused list trusts nobody. */
    struct sockaddr_in p = v4("127.0.0.1");
    CU_ASSERT_FALSE(clients_peer_trusted((struct sockaddr *)&p));
}

static void test_forwarded(void)
{
    char err[200];
    CU_ASSERT_FATAL(clients_set_trusted("127.0.0.1,10.1.0.0/16", err, sizeof err));
    /* Not a proxy: X-Forwarded-For is the client's own word, not believed. */
    CU_ASSERT_STRING_EQUAL(resolve("192.0.2.5", "203.0.113.1"), "192.0.2.5");
    /* A proxy: the address it appended. */
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", "203.0.113.1"), "203.0.113.1");
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", NULL), "127.0.0.1");
    /* What the client wrote to the left of it does not count. */
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", "1.1.1.1, 203.0.113.1"), "203.0.113.1");
    /* Two proxies in a row: past both. */
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", "1.1.1.1,203.0.113.1, 10.1.2.3"), "203.0.113.1");
    /* Every hop a proxy: the first one. */
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", "10.1.0.9, 10.1.2.3"), "10.1.0.9");
    /* A hop that is not an address stops the walk at the last good one. */
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", "203.0.113.1, unknown, 10.1.2.3"), "10.1.2.3");
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", "garbage"), "127.0.0.1");
    /* Ports and brackets as some proxies write them. */
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", "203.0.113.1:4711"), "203.0.113.1");
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", "[2001:db8::7]:4711"), "2001:db8::7");
    CU_ASSERT_STRING_EQUAL(resolve("127.0.0.1", " 2001:db8::7 "), "2001:db8::7");
    /* Every value of an octet, in each place, written as inet_ntop writes it. */
    for (unsigned v = 0; v < 256; v++) {
        unsigned char b[4] = {(unsigned char)v, (unsigned char)(255 - v),
                              (unsigned char)(v * 7 % 256), (unsigned char)(v / 3)};
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, b, text, sizeof text);
        CU_ASSERT_STRING_EQUAL(resolve(text, NULL), text);
    }
    CU_ASSERT(clients_set_trusted("", err, sizeof err));
}

static void test_keys(void)
{
    struct client_key a, b;
    /* One IPv6 /64 is one client; another /64 another. */
    CU_ASSERT(client_key_text("2001:db8:1:2::1", &a));
    CU_ASSERT(client_key_text("2001:db8:1:2:ffff::9", &b));
    CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof a), 0);
    CU_ASSERT(client_key_text("2001:db8:1:3::1", &b));
    CU_ASSERT_NOT_EQUAL(memcmp(&a, &b, sizeof a), 0);
    /* IPv4: each address its own. */
    CU_ASSERT(client_key_text("192.0.2.1", &a));
    CU_ASSERT(client_key_text("192.0.2.2", &b));
    CU_ASSERT_NOT_EQUAL(memcmp(&a, &b, sizeof a), 0);
    CU_ASSERT_FALSE(client_key_text("", &a));
}

static void test_counts(void)
{
    static struct client_counts c = CLIENT_COUNTS_INIT;
    struct client_key k;
    client_key_text("192.0.2.1", &k);
    CU_ASSERT(client_counts_add(&c, &k, 1, 2));
    CU_ASSERT(client_counts_add(&c, &k, 1, 2));
    CU_ASSERT_FALSE(client_counts_add(&c, &k, 1, 2)); /* at the limit */
    CU_ASSERT_EQUAL(client_counts_get(&c, &k), 2);
    CU_ASSERT(client_counts_add(&c, &k, -1, -1));
    CU_ASSERT(client_counts_add(&c, &k, 1, 2));
    CU_ASSERT(client_counts_add(&c, &k, -2, -1));
    CU_ASSERT_EQUAL(client_counts_get(&c, &k), 0);
    free(c.slots);
}

void register_clients_tests(void)
{
    CU_pSuite s = CU_add_suite("clients", NULL, NULL);
    CU_add_test(s, "--trust-proxy is parsed strictly", test_trusted_list);
    CU_add_test(s, "the client is the last X-Forwarded-For address that is not a proxy",
                test_forwarded);
    CU_add_test(s, "a client is an IPv4 address or an IPv6 /64", test_keys);
    CU_add_test(s, "counts per client stop at their limit", test_counts);
}
