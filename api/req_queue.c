#include "api/req_queue.h"

#include "api/http.h"

void req_queue_open(struct req_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->closed = false;
    pthread_mutex_unlock(&q->lock);
}

enum queue_push req_queue_push_ex(struct req_queue *q, struct req *r, bool urgent, long max_waiting)
{
    pthread_mutex_lock(&q->lock);
    enum queue_push res = QUEUED;
    if (q->closed)
        res = QUEUE_CLOSED;
    else if (max_waiting >= 0 && q->len >= (size_t)max_waiting)
        res = QUEUE_FULL;
    if (res == QUEUED) {
        if (urgent) {
            r->queued_next = q->head;
            q->head = r;
            if (!q->tail)
                q->tail = r;
        } else {
            r->queued_next = NULL;
            if (q->tail)
                q->tail->queued_next = r;
            else
                q->head = r;
            q->tail = r;
        }
        q->len++;
        pthread_cond_signal(&q->cond);
    }
    pthread_mutex_unlock(&q->lock);
    return res;
}

bool req_queue_push(struct req_queue *q, struct req *r)
{
    return req_queue_push_ex(q, r, false, -1) == QUEUED;
}

size_t req_queue_take(struct req_queue *q, struct req **out, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&q->lock);
    while (!q->head && !q->closed)
        pthread_cond_wait(&q->cond, &q->lock);
    while (q->head && n < max) {
        out[n++] = q->head;
        q->head = q->head->queued_next;
        q->len--;
    }
    if (!q->head)
        q->tail = NULL;
    pthread_mutex_unlock(&q->lock);
    return n;
}

size_t req_queue_waiting(struct req_queue *q)
{
    pthread_mutex_lock(&q->lock);
    size_t n = q->len;
    pthread_mutex_unlock(&q->lock);
    return n;
}

void req_queue_close(struct req_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->closed = true;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
}
