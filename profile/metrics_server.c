// SPDX-License-Identifier: GPL-2.0
#include "metrics_server.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * libmicrohttpd is loaded when --metrics asks for it, not linked: it
 * brings GnuTLS and eight more libraries, whose loading doubled the
 * start-up of every run (2.1 to 4.7 ms), and test suites run uringcheck
 * hundreds of times. The calls go through these pointers, declared from
 * the library's own header.
 */
static struct {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_get_daemon_info) get_daemon_info;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
} mhd;

static int load_mhd(void)
{
	void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "uringcheck: --metrics needs libmicrohttpd (Debian "
			"package libmicrohttpd12): %s\n", dlerror());
		return -1;
	}
#define SYM(n) if (!(*(void **)&mhd.n = dlsym(h, "MHD_" #n))) goto missing
	SYM(start_daemon);
	SYM(stop_daemon);
	SYM(get_daemon_info);
	SYM(create_response_from_buffer);
	SYM(add_response_header);
	SYM(queue_response);
	SYM(destroy_response);
	SYM(lookup_connection_value);
#undef SYM
	return 0;
missing:
	fprintf(stderr, "uringcheck: --metrics: libmicrohttpd lacks a function: %s\n",
		dlerror());
	return -1;
}

struct pf_metrics_server {
	struct MHD_Daemon *d;
	pf_render_fn render;
	void *arg;
	unsigned port;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code,
			     const char *type, char *body, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(strlen(body), body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = mhd.queue_response(c, code, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_size, void **state)
{
	struct pf_metrics_server *m = cls;
	const char *accept;
	bool om;
	char *body;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     "GET /metrics\n", MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
			     "uringcheck serves /metrics\n", MHD_RESPMEM_PERSISTENT);
	/* Prometheus asks for OpenMetrics first in its Accept header. */
	accept = mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	om = accept && strstr(accept, "application/openmetrics-text");
	body = m->render(m->arg, om);
	if (!body)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
			     "cannot read the profile's tables\n", MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_OK, om ?
		     "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		     "text/plain; version=0.0.4; charset=utf-8", body, MHD_RESPMEM_MUST_FREE);
}

/* "PORT", "HOST:PORT", "[V6]:PORT"; HOST defaults to 127.0.0.1: the
 * tables name processes and should not reach the network by accident. */
static int parse_spec(const char *spec, struct sockaddr_storage *ss)
{
	char host[256] = "127.0.0.1", *end;
	const char *colon = strrchr(spec, ':'), *port_s = spec;
	unsigned long port;

	memset(ss, 0, sizeof(*ss));
	if (colon) {
		size_t n = colon - spec;

		if (n >= sizeof(host))
			return -1;
		memcpy(host, spec, n);
		host[n] = 0;
		if (host[0] == '[' && n >= 2 && host[n - 1] == ']') {
			memmove(host, host + 1, n - 2);
			host[n - 2] = 0;
		}
		port_s = colon + 1;
	}
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (errno || end == port_s || *end || port > 65535)
		return -1;
	if (strchr(host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? AF_INET6 : -1;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? AF_INET : -1;
}

struct pf_metrics_server *pf_metrics_start(const char *spec, pf_render_fn render,
					   void *arg)
{
	struct pf_metrics_server *m = calloc(1, sizeof(*m));
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	int fam = parse_spec(spec, &ss);

	if (!m)
		return NULL;
	if (!mhd.start_daemon && load_mhd()) {
		free(m);
		return NULL;
	}
	if (fam < 0) {
		fprintf(stderr, "uringcheck: --metrics=%s: not [HOST:]PORT (HOST an "
			"IPv4 or [IPv6] address)\n", spec);
		free(m);
		return NULL;
	}
	m->render = render;
	m->arg = arg;
	m->d = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				(fam == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, on_request, m,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
				MHD_OPTION_END);
	if (!m->d) {
		fprintf(stderr, "uringcheck: --metrics=%s: cannot listen there (in "
			"use, or not an address of this machine)\n", spec);
		free(m);
		return NULL;
	}
	info = mhd.get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
	m->port = info ? info->port : 0;
	return m;
}

unsigned pf_metrics_port(const struct pf_metrics_server *m)
{
	return m->port;
}

void pf_metrics_stop(struct pf_metrics_server *m)
{
	if (!m)
		return;
	mhd.stop_daemon(m->d);
	free(m);
}
