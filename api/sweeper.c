#include "api/sweeper.h"

#include "db/db.h"
#include "db/store.h"
#include "util/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static pthread_t thread;
static bool running;
static atomic_bool stop;
static unsigned ttl;
static atomic_ulong deleted;

unsigned long sweeper_deleted(void)
{
    return atomic_load(&deleted);
}

static void *run(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-sweeper");
    struct db *db = db_thread();
    unsigned every = ttl / 2 < 1 ? 1 : ttl / 2 > 60 ? 60 : ttl / 2;
    char text[16];
    snprintf(text, sizeof text, "%u", ttl);
    for (unsigned tick = 0; !stop; tick++) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        if (tick % (every * 10) != every * 10 - 1 || !db_ensure(db))
            continue;
        long n = db_idem_sweep(db, text);
        if (n > 0) {
            atomic_fetch_add(&deleted, (unsigned long)n);
            log_msg(LOG_DEBUG, "sweeper", "deleted %ld expired Idempotency-Key responses", n);
        }
    }
    return NULL;
}

bool sweeper_start(unsigned ttl_seconds)
{
    ttl = ttl_seconds;
    stop = false;
    running = pthread_create(&thread, NULL, run, NULL) == 0;
    if (!running)
        log_msg(LOG_ERROR, "sweeper", "cannot start the sweeper thread");
    return running;
}

void sweeper_stop(void)
{
    if (!running)
        return;
    stop = true;
    pthread_join(thread, NULL);
    running = false;
}
