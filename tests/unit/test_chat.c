/* The group's chat, without a network: which links are taken (and what host the organizer is
 * shown), which kind of body a host gets, and which addresses are refused by default. */
#include "api/chat_delivery.h"
#include "campaign/chat.h"
#include "tests/common/testkit.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>

static void test_url_check(void)
{
    const struct {
        const char *url;
        const char *host; /* NULL: refused */
    } cases[] = {
        {"https://discord.com/api/webhooks/1/abc", "discord.com"},
        {"HTTP://Hooks.Slack.COM/services/T/B/x", "hooks.slack.com"},
        {"https://user:secret@chat.example.org:8443/hook?x=1#y", "chat.example.org"},
        {"http://[::1]:9000/hook", "[::1]"},
        {"http://127.0.0.1", "127.0.0.1"},
        {"ftp://example.org/hook", NULL},
        {"example.org/hook", NULL},
        {"javascript:alert(1)", NULL},
        {"https://", NULL},
        {"https:///path", NULL},
        {"https://user@/path", NULL},
        {"https://exa mple.org/", NULL},
        {"https://example.org/\n", NULL},
        {"https://exämple.org/", NULL},
        {"", NULL},
        /* What the sender would not read as it is written (libcurl refuses each), or reads
         * as another server. */
        {"http://127.0.0.1:99999/x", NULL},
        {"http://example.org:0/x", NULL},
        {"http://example.org:/x", NULL},
        {"http://a:abc/", NULL},
        {"http://example.org:80a/", NULL},
        {"http://[zz]/", NULL},
        {"http://[]/", NULL},
        {"http://[::1/", NULL},
        {"http://[::1]x/", NULL},
        {"http://[fe80::1%25lo]/", NULL},
        {"http://a@b@127.0.0.1:8080/t", NULL},
        {"http://%31%32%37.0.0.1/", NULL},
        {"http://exa_mple.org:65535/", "exa_mple.org"},
        {"http://[2001:db8::1]:1/hook", "[2001:db8::1]"},
        {"http://[::ffff:192.0.2.1]/", "[::ffff:192.0.2.1]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char host[CHAT_HOST_MAX], why[200] = "";
        bool ok = chat_url_check(cases[i].url, host, why, sizeof why);
        if (ok != (cases[i].host != NULL))
            fprintf(stderr, "\nchat_url_check(%s): %d (%s)\n", cases[i].url, ok, why);
        CU_ASSERT_EQUAL(ok, cases[i].host != NULL);
        if (ok && cases[i].host)
            CU_ASSERT_STRING_EQUAL(host, cases[i].host);
        if (!ok)
            CU_ASSERT(strlen(why) > 10);
    }
    /* The longest link taken, and one byte more. */
    static char url[CHAT_URL_MAX + 2];
    strcpy(url, "https://example.org/");
    memset(url + strlen(url), 'a', CHAT_URL_MAX - strlen(url));
    url[CHAT_URL_MAX] = '\0';
    char host[CHAT_HOST_MAX], why[200];
    CU_ASSERT_TRUE(chat_url_check(url, host, why, sizeof why));
    url[CHAT_URL_MAX] = 'a';
    url[CHAT_URL_MAX + 1] = '\0';
    CU_ASSERT_FALSE(chat_url_check(url, host, why, sizeof why));
}

static void test_kind_guess(void)
{
    CU_ASSERT_EQUAL(chat_kind_guess("discord.com"), CHAT_DISCORD);
    CU_ASSERT_EQUAL(chat_kind_guess("ptb.discord.com"), CHAT_DISCORD);
    CU_ASSERT_EQUAL(chat_kind_guess("discordapp.com"), CHAT_DISCORD);
    CU_ASSERT_EQUAL(chat_kind_guess("hooks.slack.com"), CHAT_SLACK);
    CU_ASSERT_EQUAL(chat_kind_guess("evildiscord.com"), CHAT_GENERIC);
    CU_ASSERT_EQUAL(chat_kind_guess("discord.com.example.org"), CHAT_GENERIC);
    CU_ASSERT_EQUAL(chat_kind_guess("slack.com"), CHAT_GENERIC);
    CU_ASSERT_EQUAL(chat_kind_guess("chat.example.org"), CHAT_GENERIC);
}

static bool private4(const char *a)
{
    struct sockaddr_in s = {.sin_family = AF_INET};
    CU_ASSERT_EQUAL(inet_pton(AF_INET, a, &s.sin_addr), 1);
    return chat_address_private((const struct sockaddr *)&s);
}

static bool private6(const char *a)
{
    struct sockaddr_in6 s = {.sin6_family = AF_INET6};
    CU_ASSERT_EQUAL(inet_pton(AF_INET6, a, &s.sin6_addr), 1);
    return chat_address_private((const struct sockaddr *)&s);
}

static void test_private_addresses(void)
{
    /* RFC 6890's special-purpose ranges a chat never is at, by default. */
    const char *refused4[] = {
        "0.0.0.0",         "10.1.2.3",        "100.64.0.1",  "100.127.255.254", "127.0.0.1",
        "127.255.255.255", "169.254.169.254", "172.16.0.1",  "172.31.255.255",  "192.0.0.8",
        "192.0.2.1",       "192.88.99.1",     "192.168.1.1", "198.18.0.1",      "198.19.255.255",
        "198.51.100.7",    "203.0.113.9",     "224.0.0.1",   "240.0.0.1",       "255.255.255.255"};
    const char *taken4[] = {"1.1.1.1",        "8.8.8.8",    "100.63.255.255",  "100.128.0.0",
                            "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0",
                            "198.17.255.255", "198.20.0.0", "223.255.255.255", "162.159.135.232"};
    for (size_t i = 0; i < sizeof refused4 / sizeof refused4[0]; i++) {
        if (!private4(refused4[i]))
            fprintf(stderr, "\n%s taken\n", refused4[i]);
        CU_ASSERT_TRUE(private4(refused4[i]));
    }
    for (size_t i = 0; i < sizeof taken4 / sizeof taken4[0]; i++) {
        if (private4(taken4[i]))
            fprintf(stderr, "\n%s refused\n", taken4[i]);
        CU_ASSERT_FALSE(private4(taken4[i]));
    }
    /* IPv4 inside IPv6 (mapped, compatible, SIIT, NAT64, 6to4) is judged as IPv4. */
    const char *refused6[] = {"::",
                              "::1",
                              "::ffff:127.0.0.1",
                              "::ffff:10.0.0.1",
                              "::ffff:169.254.169.254",
                              "::127.0.0.1",
                              "::ffff:0:10.0.0.1",
                              "64:ff9b::a9fe:a9fe",
                              "64:ff9b:1::1",
                              "2002:7f00:1::1",
                              "2002:c0a8:101::1",
                              "2001::1",
                              "2001:db8::1",
                              "100::1",
                              "fc00::1",
                              "fdff::1",
                              "fe80::1",
                              "febf::1",
                              "fec0::1",
                              "ff02::1"};
    const char *taken6[] = {"2606:4700::6810:84e5", "2001:4860:4860::8888", "::ffff:8.8.8.8",
                            "64:ff9b::808:808",     "2002:808:808::1",      "2a00:1450::1"};
    for (size_t i = 0; i < sizeof refused6 / sizeof refused6[0]; i++) {
        if (!private6(refused6[i]))
            fprintf(stderr, "\n%s taken\n", refused6[i]);
        CU_ASSERT_TRUE(private6(refused6[i]));
    }
    for (size_t i = 0; i < sizeof taken6 / sizeof taken6[0]; i++) {
        if (private6(taken6[i]))
            fprintf(stderr, "\n%s refused\n", taken6[i]);
        CU_ASSERT_FALSE(private6(taken6[i]));
    }
}

/* Every address of this host is refused, public ones too. */
static void test_own_addresses(void)
{
    struct ifaddrs *list;
    CU_ASSERT_EQUAL_FATAL(getifaddrs(&list), 0);
    int seen = 0;
    for (struct ifaddrs *i = list; i; i = i->ifa_next)
        if (i->ifa_addr &&
            (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6)) {
            CU_ASSERT_TRUE(chat_address_own(i->ifa_addr));
            seen++;
        }
    freeifaddrs(list);
    CU_ASSERT(seen >= 1); /* loopback at least */
    CU_ASSERT_FALSE(private4("8.8.8.8"));
    struct sockaddr_in s = {.sin_family = AF_INET};
    inet_pton(AF_INET, "8.8.8.8", &s.sin_addr);
    CU_ASSERT_FALSE(chat_address_own((const struct sockaddr *)&s));
}

void register_chat_tests(void)
{
    CU_pSuite s = CU_add_suite("chat links and addresses", NULL, NULL);
    CU_add_test(s, "links taken and refused; the host shown", test_url_check);
    CU_add_test(s, "the body's kind from the host", test_kind_guess);
    CU_add_test(s, "private addresses refused by default", test_private_addresses);
    CU_add_test(s, "this host's own addresses refused by default", test_own_addresses);
}
