/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --metrics=[HOST:]PORT: GET /metrics over HTTP, served by libmicrohttpd
 * on a thread of its own. Each scrape asks @render for fresh text.
 */
#ifndef UC_PF_METRICS_SERVER_H
#define UC_PF_METRICS_SERVER_H

#include <stdbool.h>

/* A malloc'ed exposition; @openmetrics: the scraper accepts OpenMetrics. */
typedef char *(*pf_render_fn)(void *arg, bool openmetrics);

struct pf_metrics_server;

/* NULL with a one-line error on stderr (bad address, port in use). */
struct pf_metrics_server *pf_metrics_start(const char *spec, pf_render_fn render,
					   void *arg);
/* The port it listens on (useful with PORT 0). */
unsigned pf_metrics_port(const struct pf_metrics_server *m);
void pf_metrics_stop(struct pf_metrics_server *m);

#endif
