/*
 * Runs fuzz targets over files without libFuzzer: the seed corpora and every crash that was
 * ever found (tests/fuzz/regressions/<target>/), as a regression test in `make test` (under
 * AddressSanitizer + UndefinedBehaviorSanitizer there).
 *   replay FILE|DIR...
 * A path that does not exist fails the run (a misspelt directory would otherwise replay
 * nothing and pass). In a directory, dot files and README* are not inputs.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int files = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            rc = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            rc |= run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            rc = 1;
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            rc |= run_file(path);
            files++;
        }
        closedir(d);
    }
    if (rc)
        printf("%s: %d inputs replayed; FAILED (see above)\n", argv[0], files);
    else
        printf("%s: %d inputs replayed, no crash\n", argv[0], files);
    return rc;
}
