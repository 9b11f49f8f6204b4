/* Fuzz target: the configuration parser, with arguments and environment from the input. */
#include "cmd/m44d/config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char envbuf[512];

static char *fake_getenv(const char *name)
{
    (void)name;
    return envbuf[0] ? envbuf : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 2048)
        return 0;
    char text[2049];
    memcpy(text, data, size);
    text[size] = '\0';
    /* Words separated by NUL or newline; the first word is also every variable's value. */
    char *argv[64] = {"m44d"};
    int argc = 1;
    for (char *p = text; p < text + size && argc < 63;) {
        argv[argc++] = p;
        size_t len = strcspn(p, "\n");
        p[len] = '\0';
        p += len + 1;
    }
    snprintf(envbuf, sizeof envbuf, "%s", argc > 1 ? argv[1] : "");
    struct config cfg;
    char err[512];
    if (config_parse(&cfg, argc, argv, fake_getenv, err, sizeof err) == CONFIG_OK) {
        if (cfg.listen_port == 0 || cfg.threads < 1 || cfg.max_body < 1024)
            abort(); /* accepted a value outside its declared range */
    } else if (!err[0]) {
        abort(); /* refused without saying why */
    }
    return 0;
}
