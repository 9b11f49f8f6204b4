/* Every endpoint handler; each lives in the api/ file named after its endpoint. */
#ifndef M44_API_HANDLERS_H
#define M44_API_HANDLERS_H

struct req;

/* api/health.c */
void handle_healthz(struct req *r);
void handle_readyz(struct req *r);
void handle_metrics(struct req *r);

#endif
