# m44d — Memoir '44 campaign manager.
#   make            build bin/m44d and bin/m44
#   make run        start m44d with a private PostgreSQL under var/ (or $DATABASE_URL)
#   make stop       stop that private PostgreSQL
#   make test       install what is missing (scripts/deps.sh test), check it (scripts/check-deps.sh),
#                   then run every test suite (see tests/run.sh)
#   make test-fresh the README's `make run`, then `make test`, on a bare Debian 12 root (debootstrap + chroot)
#   make deploy-rehearsal  docs/DEPLOY.md followed on a bare Debian 12 root booted with systemd-nspawn
#   make lint       clang-format check and cppcheck
# MODE=asan builds everything with AddressSanitizer + UndefinedBehaviorSanitizer into build/asan.

VERSION := 0.1.0
MODE    ?= release
CC      ?= gcc

WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 -Wvla
CPPFLAGS_ALL = -D_GNU_SOURCE -I/usr/include/postgresql -DM44_VERSION='"$(VERSION)"' -I. -I$(B)/gen
LIBS    := -lmicrohttpd -ljansson -lpq -lsodium -lcurl -lpthread -lm
TEST_LIBS := -lcunit

ifeq ($(MODE),release)
  B      := build/release
  BIN    := bin
  OPT    := -O2 -g
else ifeq ($(MODE),asan)
  B      := build/asan
  BIN    := build/asan/bin
  OPT    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
else ifeq ($(MODE),fuzz)
  CC     := clang
  B      := build/fuzz
  BIN    := build/fuzz/bin
  OPT    := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
else
  $(error MODE must be release, asan or fuzz)
endif

CFLAGS  := $(WARN) $(OPT) -MMD -MP
LDFLAGS := $(filter -fsanitize=%,$(OPT))

LIB_SRC := $(wildcard util/*.c db/*.c rules/*.c campaign/*.c api/*.c)
GEN_SRC := $(B)/gen/embedded_migrations.c $(B)/gen/embedded_rulesets.c \
           $(B)/gen/embedded_grand.c $(B)/gen/embedded_web.c $(B)/gen/embedded_openapi.c
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o) $(GEN_SRC:.c=.o)
LIB     := $(B)/libm44.a

M44D_OBJ := $(B)/cmd/m44d/main.o $(B)/cmd/m44d/config.o
M44_OBJ  := $(patsubst %.c,$(B)/%.o,$(wildcard cmd/m44/*.c))

TEST_COMMON := $(patsubst %.c,$(B)/%.o,$(wildcard tests/common/*.c))
TEST_SUITES := unit rules db api faults abuse
TEST_BINS   := $(TEST_SUITES:%=$(B)/test-bin/%)

MIGRATIONS := $(sort $(wildcard db/migrations/*.sql))
RULESETS   := $(sort $(wildcard rules/data/*.json))
GRAND      := $(sort $(wildcard rules/grand/*.json))
WEB        := $(sort $(wildcard web-static/*.*))
OPENAPI    := api/openapi.json

# One per tests/fuzz/fuzz_<target>.c; tests/run.sh and scripts/fuzz.sh list them the same way.
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 30

.PHONY: all run stop test test-faults test-fresh deploy-rehearsal mutants valgrind bench bench-bins bench-profile cluster test-cluster lint deps clean tests fuzz fuzz-bins replays
all: $(BIN)/m44d $(if $(wildcard cmd/m44/main.c),$(BIN)/m44)

$(BIN)/m44d: $(M44D_OBJ) $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $(M44D_OBJ) $(LIB) $(LIBS)

$(BIN)/m44: $(M44_OBJ) $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $(M44_OBJ) $(LIB) $(LIBS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS_ALL) $(CFLAGS) -c -o $@ $<

# Generated sources are compiled without the strict warning set's -Wshadow etc. mattering.
$(B)/gen/%.o: $(B)/gen/%.c
	@$(CC) $(CPPFLAGS_ALL) $(CFLAGS) -c -o $@ $<

# Test tables leave trailing fields out on purpose.
$(B)/tests/%.o: CFLAGS += -Wno-missing-field-initializers

$(B)/tools/embed: tools/embed.c
	@mkdir -p $(@D)
	@$(CC) $(WARN) -O1 -o $@ $<

# The directories too: a file taken out changes only its directory.
$(B)/gen/embedded_migrations.c: $(B)/tools/embed $(MIGRATIONS) db/migrations
	@mkdir -p $(@D)
	@$(B)/tools/embed embedded_migrations db/migrations $@ $(MIGRATIONS)
$(B)/gen/embedded_rulesets.c: $(B)/tools/embed $(RULESETS) rules/data
	@mkdir -p $(@D)
	@$(B)/tools/embed embedded_rulesets rules/data $@ $(RULESETS)
$(B)/gen/embedded_grand.c: $(B)/tools/embed $(GRAND) rules/grand
	@mkdir -p $(@D)
	@$(B)/tools/embed embedded_grand rules/grand $@ $(GRAND)
$(B)/gen/embedded_web.c: $(B)/tools/embed $(WEB) web-static
	@mkdir -p $(@D)
	@$(B)/tools/embed embedded_web web-static $@ $(WEB)
$(B)/gen/embedded_openapi.c: $(B)/tools/embed $(OPENAPI)
	@mkdir -p $(@D)
	@$(B)/tools/embed embedded_openapi api $@ $(OPENAPI)

# Test programs: one per suite, each from tests/<suite>/*.c plus tests/common.
tests: $(TEST_BINS) all replays
.SECONDEXPANSION:
$(B)/test-bin/%: $$(addprefix $(B)/,$$(subst .c,.o,$$(wildcard tests/$$*/*.c))) $(TEST_COMMON) $(B)/cmd/m44d/config.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LIBS) $(TEST_LIBS)

# Fuzzing: libFuzzer binaries (MODE=fuzz, clang), and replayers that run the corpora and every
# crash ever found as regression tests in any build.
fuzz-bins: $(FUZZ_TARGETS:%=$(B)/fuzz-bin/%)
replays: $(FUZZ_TARGETS:%=$(B)/fuzz-replay/%)

$(B)/fuzz-bin/%: $(B)/tests/fuzz/fuzz_%.o $(B)/cmd/m44d/config.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	@$(CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LIBS)

$(B)/fuzz-replay/%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/fuzz/replay.o $(B)/cmd/m44d/config.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

fuzz:
	@scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory MODE=fuzz fuzz-bins
	@scripts/fuzz.sh $(FUZZ_SECONDS)

deps:
	@scripts/deps.sh run

run: deps
	@$(MAKE) --no-print-directory all
	@scripts/run.sh

stop:
	@scripts/pg.sh stop var/pg

# Each target installs its own profile of scripts/packages.sh; deps.sh then checks it.
test:
	@scripts/deps.sh test
	@tests/run.sh

test-faults:
	@scripts/deps.sh faults
	@tests/run.sh faults abuse

# The mutation trial (docs/TESTING.md): each tests/mutants/*.patch must make its suite fail.
mutants:
	@scripts/deps.sh mutants
	@$(MAKE) --no-print-directory all tests
	@scripts/mutants.sh

# The README's `make run` and `make test` in a fresh clone on a bare Debian 12 root (CI's test
# step; about 8 minutes with a nearby mirror, 15 over a slow link).
test-fresh:
	@scripts/deps.sh fresh
	@scripts/test-fresh.sh

# docs/DEPLOY.md, every step, on a bare Debian 12 root booted with systemd-nspawn (opt-in: ~2 minutes).
deploy-rehearsal:
	@scripts/deps.sh rehearsal
	@scripts/deploy-rehearsal.sh

# Benchmarks: baselines (pgbench, a bare libmicrohttpd + libpq server) against m44d, side by side.
bench-bins: $(B)/bench/loadgen $(B)/bench/bare $(B)/bench/viewers

$(B)/bench/%: bench/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS_ALL) $(WARN) -O2 -o $@ $< $(LIBS)

# m44d scaled out on loopback: PostgreSQL primary + synchronous streaming standby, three
# daemons, nginx (docs/SCALING.md). `scripts/cluster.sh status|down|destroy` for the rest.
cluster:
	@scripts/deps.sh cluster
	@$(MAKE) --no-print-directory all
	@scripts/cluster.sh up

# The failover drill on that cluster: a daemon and the primary killed under writes with
# Idempotency-Keys, the standby promoted; none lost, none duplicated (about 30 s). Then m44d
# through PgBouncer in session mode, the server crashing behind it (about 6 s).
test-cluster:
	@scripts/deps.sh cluster
	@$(MAKE) --no-print-directory all
	@tests/cluster/drill.sh
	@tests/cluster/pooler.sh

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all bench-bins
	@bench/run.sh
	@bench/cluster.sh

# Where a warm reserve roll's time goes: PostgreSQL's statements (pg_stat_statements), the CPU
# of PostgreSQL, m44d and the load generator, and m44d's own by function (perf, if installed).
bench-profile:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all bench-bins
	@bench/profile.sh

# The API tests with every m44d they start running under valgrind: no error, no definite leak.
valgrind:
	@scripts/deps.sh valgrind
	@M44_TEST_WRAPPER="valgrind --quiet --error-exitcode=99 --leak-check=full \
	  --errors-for-leak-kinds=definite --show-leak-kinds=definite --num-callers=30 \
	  --suppressions=$(CURDIR)/tests/valgrind.supp" tests/run.sh api

lint:
	@scripts/deps.sh lint
	@scripts/check-layers.sh
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr --std=c11 -I. -D_GNU_SOURCE --suppress=missingIncludeSystem \
	  $$(git ls-files '*.c')

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
