// SPDX-License-Identifier: GPL-2.0
#include "pb_stream.h"

#include <unistd.h>

#include "u64map.h"
#include "user_files.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Perfetto's builtin clock ids: the records carry CLOCK_MONOTONIC. The
 * snapshot gives BOOTTIME too, Perfetto's default trace clock, so a
 * reader can place the sequence-scoped incremental clock (ids 64-127). */
#define CLOCK_ID_MONOTONIC	3
#define CLOCK_ID_BOOTTIME	6
#define CLOCK_ID_DELTAS		64
#define SEQUENCE_ID		1
/* "0x..." values interned at most: a program whose user_data never
 * repeats would grow the table for nothing; past this they go inline. */
#define HEX_INTERN_MAX		65536

/* Interned strings: event names, annotation names and string values,
 * separate tables in Perfetto (string values share their iids with
 * hex_iids). Found by a hash of the table and the string: the values
 * run to HEX_INTERN_MAX, and a list searched with strcmp was a sixth of
 * the reader's time on a batched fio trace (perf), enough to lose
 * records at the default buffer. */
enum { T_EVENT_NAME, T_ANNOT_NAME, T_STRING };

struct pb_name {
	char *s;
	uint64_t iid;
	int table;
	size_t next;			/* index + 1 of the next of its hash, 0: none */
};

struct pb_names {
	struct pb_name *v;
	size_t n, cap;
	uint64_t next[2];		/* T_STRING counts in s->next_string_iid */
	struct u64map by_hash;		/* hash -> index + 1 of its first entry */
};

/* FNV-1a over the table and the string. */
static uint64_t name_hash(int table, const char *str)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)table;

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 0x100000001b3ull;
	return h;
}

static uint64_t intern(struct pb_stream *s, int table, const char *str, bool *fresh)
{
	struct pb_names *t = s->names;
	uint64_t h = name_hash(table, str);
	size_t first = (size_t)(uintptr_t)u64map_get(&t->by_hash, h);
	char *copy;

	for (size_t i = first; i; i = t->v[i - 1].next)
		if (t->v[i - 1].table == table && !strcmp(t->v[i - 1].s, str)) {
			*fresh = false;
			return t->v[i - 1].iid;
		}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct pb_name *nv = realloc(t->v, cap * sizeof(*nv));

		if (!nv)
			return 0;
		t->v = nv;
		t->cap = cap;
	}
	copy = strdup(str);
	if (!copy)
		return 0;
	t->v[t->n] = (struct pb_name){ .s = copy, .table = table, .next = first,
				       .iid = table == T_STRING ? ++s->next_string_iid :
							       ++t->next[table] };
	u64map_put(&t->by_hash, h, (void *)(uintptr_t)(t->n + 1));
	*fresh = true;
	return t->v[t->n++].iid;
}

/* Field 1 of Trace, length-delimited: tag, length, the packet. */
static void write_packet(struct pb_stream *s, Perfetto__Protos__TracePacket *p)
{
	size_t len = perfetto__protos__trace_packet__get_packed_size(p);
	uint8_t stackbuf[4096], *buf = len <= sizeof(stackbuf) ? stackbuf : malloc(len);
	uint8_t hdr[11];
	size_t h = 0, v = len;

	if (!buf) {
		s->failed = true;
		return;
	}
	perfetto__protos__trace_packet__pack(p, buf);
	hdr[h++] = 0x0a;
	do {
		hdr[h++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	if (fwrite(hdr, 1, h, s->f) != h || fwrite(buf, 1, len, s->f) != len)
		s->failed = true;
	s->packets++;
	s->bytes += h + len;
	if (buf != stackbuf)
		free(buf);
}

static void packet_init(struct pb_stream *s, Perfetto__Protos__TracePacket *p)
{
	perfetto__protos__trace_packet__init(p);
	p->has_trusted_packet_sequence_id = 1;
	p->trusted_packet_sequence_id = SEQUENCE_ID;
	p->has_sequence_flags = 1;
	/* the first packet clears the sequence's interning state; every one
	 * after may use it */
	p->sequence_flags = s->started ?
		PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE :
		PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
	s->started = true;
}

static uint64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The sequence's first packet: state cleared, and the clock every later
 * packet's timestamp is a delta on (TracePacketDefaults), declared by a
 * snapshot that ties it to CLOCK_MONOTONIC and CLOCK_BOOTTIME. */
static void first_packet(struct pb_stream *s)
{
	Perfetto__Protos__TracePacket p;
	Perfetto__Protos__TracePacketDefaults d = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Perfetto__Protos__TrackEventDefaults ted = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock c[3], *cp[3] = { &c[0], &c[1], &c[2] };
	uint64_t m0 = now(CLOCK_MONOTONIC), b = now(CLOCK_BOOTTIME), m1 = now(CLOCK_MONOTONIC);
	uint64_t ids[3] = { CLOCK_ID_MONOTONIC, CLOCK_ID_BOOTTIME, CLOCK_ID_DELTAS };

	s->last_ts = m0 + (m1 - m0) / 2;
	for (int i = 0; i < 3; i++) {
		perfetto__protos__clock_snapshot__clock__init(&c[i]);
		c[i].has_clock_id = c[i].has_timestamp = 1;
		c[i].clock_id = ids[i];
		c[i].timestamp = ids[i] == CLOCK_ID_BOOTTIME ? b : s->last_ts;
	}
	c[2].has_is_incremental = c[2].is_incremental = 1;
	cs.n_clocks = 3;
	cs.clocks = cp;
	d.has_timestamp_clock_id = 1;
	d.timestamp_clock_id = CLOCK_ID_DELTAS;
	ted.has_track_uuid = 1;
	ted.track_uuid = s->default_track;
	d.track_event_defaults = &ted;
	if (s->n_default_counters) {
		ted.n_extra_counter_track_uuids = s->n_default_counters;
		ted.extra_counter_track_uuids = s->default_counters;
	}
	packet_init(s, &p);
	p.clock_snapshot = &cs;
	p.trace_packet_defaults = &d;
	write_packet(s, &p);
}

int pb_open(struct pb_stream *s, const char *path, uint64_t track, const uint64_t *counters,
	    int n)
{
	memset(s, 0, sizeof(*s));
	s->default_track = track;
	if (n > PB_MAX_COUNTERS)
		n = PB_MAX_COUNTERS;
	memcpy(s->default_counters, counters, n * sizeof(*counters));
	s->n_default_counters = n;
	s->names = calloc(1, sizeof(*s->names));
	if (s->names)
		u64map_init(&s->names->by_hash);
	u64map_init(&s->hex_iids);
	/* opened before the run, as the user (lib/user_files.h) */
	s->f = uf_output_stream("trace", path);
	if (!s->f)
		s->f = uf_output_open("trace", path, getpid());
	if (!s->f || !s->names)
		return -1;
	first_packet(s);
	return 0;
}

int pb_close(struct pb_stream *s)
{
	int err = s->failed;

	if (s->f && fclose(s->f))
		err = 1;
	if (s->names) {
		for (size_t i = 0; i < s->names->n; i++)
			free(s->names->v[i].s);
		free(s->names->v);
		u64map_free(&s->names->by_hash);
		free(s->names);
	}
	u64map_free(&s->hex_iids);
	s->f = NULL;
	s->names = NULL;
	return err ? -1 : 0;
}

static void descriptor(struct pb_stream *s, Perfetto__Protos__TrackDescriptor *d)
{
	Perfetto__Protos__TracePacket p;

	packet_init(s, &p);
	p.track_descriptor = d;
	write_packet(s, &p);
}

void pb_process_track(struct pb_stream *s, uint64_t uuid, int pid, const char *name)
{
	Perfetto__Protos__TrackDescriptor d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;

	d.has_uuid = 1;
	d.uuid = uuid;
	pd.has_pid = 1;
	pd.pid = pid;
	pd.process_name = (char *)name;
	d.process = &pd;
	descriptor(s, &d);
}

void pb_thread_track(struct pb_stream *s, uint64_t uuid, int pid, int tid, const char *name)
{
	Perfetto__Protos__TrackDescriptor d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor td = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

	d.has_uuid = 1;
	d.uuid = uuid;
	td.has_pid = td.has_tid = 1;
	td.pid = pid;
	td.tid = tid;
	td.thread_name = (char *)name;
	d.thread = &td;
	descriptor(s, &d);
}

void pb_child_track(struct pb_stream *s, uint64_t uuid, uint64_t parent, const char *name,
		    bool counter)
{
	Perfetto__Protos__TrackDescriptor d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;

	d.has_uuid = 1;
	d.uuid = uuid;
	d.has_parent_uuid = parent != 0;
	d.parent_uuid = parent;
	d.name = (char *)name;
	if (counter)
		d.counter = &cd;
	descriptor(s, &d);
}

void pb_event_begin(struct pb_stream *s, int type, uint64_t track, const char *name)
{
	perfetto__protos__track_event__init(&s->ev);
	s->ev.has_type = 1;
	s->ev.type = type;
	s->ev.has_track_uuid = 1;
	s->ev.track_uuid = track;
	s->ev.debug_annotations = s->annot_ptrs;
	s->ev.flow_ids = s->flows;
	s->ev.terminating_flow_ids = s->term_flows;
	s->ev.extra_counter_track_uuids = s->counter_tracks;
	s->ev.extra_counter_values = s->counter_values;
	s->n_new_names = s->n_new_anames = s->n_new_strings = 0;
	if (name) {
		bool fresh;

		s->ev.has_name_iid = 1;
		s->ev.name_iid = intern(s, T_EVENT_NAME, name, &fresh);
		if (fresh) {
			Perfetto__Protos__EventName *e = &s->new_names[0];

			perfetto__protos__event_name__init(e);
			e->has_iid = 1;
			e->iid = s->ev.name_iid;
			e->name = (char *)name;
			s->new_name_ptrs[0] = e;
			s->n_new_names = 1;
		}
	}
}

static pb_annot *annot(struct pb_stream *s, const char *name)
{
	size_t i = s->ev.n_debug_annotations;
	__typeof__(s->annot_cache[0]) *c;
	pb_annot *a;
	bool fresh;

	if (i == PB_MAX_ANNOTS)
		return NULL;
	a = &s->annots[i];
	perfetto__protos__debug_annotation__init(a);
	a->has_name_iid = 1;
	/* Eight annotations a request, their names literals: most are
	 * found by address, without a hash of the string. */
	c = &s->annot_cache[((uintptr_t)name >> 3) % (sizeof(s->annot_cache) /
						      sizeof(s->annot_cache[0]))];
	if (c->name == name) {
		a->name_iid = c->iid;
		fresh = false;
	} else {
		a->name_iid = intern(s, T_ANNOT_NAME, name, &fresh);
		c->name = name;
		c->iid = a->name_iid;
	}
	if (fresh) {
		Perfetto__Protos__DebugAnnotationName *n = &s->new_anames[s->n_new_anames];

		perfetto__protos__debug_annotation_name__init(n);
		n->has_iid = 1;
		n->iid = a->name_iid;
		n->name = (char *)name;
		s->new_aname_ptrs[s->n_new_anames++] = n;
	}
	s->annot_ptrs[i] = a;
	s->ev.n_debug_annotations++;
	return a;
}

void pb_annot_uint(struct pb_stream *s, const char *name, uint64_t v)
{
	pb_annot *a = annot(s, name);

	if (a) {
		a->has_uint_value = 1;
		a->uint_value = v;
	}
}

void pb_annot_int(struct pb_stream *s, const char *name, int64_t v)
{
	pb_annot *a = annot(s, name);

	if (a) {
		a->has_int_value = 1;
		a->int_value = v;
	}
}

/* @v must live until the event is emitted. */
void pb_annot_str(struct pb_stream *s, const char *name, const char *v)
{
	pb_annot *a = annot(s, name);

	if (a)
		a->string_value = (char *)v;
}

/* A string value sent once with its iid (@str lives until the emit). */
static void new_string(struct pb_stream *s, uint64_t iid, const char *str)
{
	Perfetto__Protos__InternedString *n = &s->new_strings[s->n_new_strings];

	perfetto__protos__interned_string__init(n);
	n->has_iid = n->has_str = 1;
	n->iid = iid;
	n->str.data = (uint8_t *)str;
	n->str.len = strlen(str);
	s->new_string_ptrs[s->n_new_strings++] = n;
}

void pb_annot_istr(struct pb_stream *s, const char *name, const char *v)
{
	pb_annot *a = annot(s, name);
	bool fresh;

	if (!a)
		return;
	a->has_string_value_iid = 1;
	a->string_value_iid = intern(s, T_STRING, v, &fresh);
	if (fresh)
		new_string(s, a->string_value_iid, v);
}

void pb_annot_hex(struct pb_stream *s, const char *name, uint64_t v)
{
	size_t i = s->ev.n_debug_annotations;
	pb_annot *a = annot(s, name);
	uint64_t iid;

	if (!a)
		return;
	snprintf(s->annot_text[i], sizeof(s->annot_text[i]), "0x%llx", (unsigned long long)v);
	iid = (uintptr_t)u64map_get(&s->hex_iids, v);
	if (!iid && s->hex_iids.count < HEX_INTERN_MAX) {
		iid = ++s->next_string_iid;
		u64map_put(&s->hex_iids, v, (void *)(uintptr_t)iid);
		new_string(s, iid, s->annot_text[i]);
	}
	if (iid) {
		a->has_string_value_iid = 1;
		a->string_value_iid = iid;
	} else {
		a->string_value = s->annot_text[i];
	}
}

void pb_flow(struct pb_stream *s, uint64_t id, bool terminating)
{
	if (terminating && s->ev.n_terminating_flow_ids < PB_MAX_FLOWS)
		s->term_flows[s->ev.n_terminating_flow_ids++] = id;
	else if (!terminating && s->ev.n_flow_ids < PB_MAX_FLOWS)
		s->flows[s->ev.n_flow_ids++] = id;
}

void pb_counter(struct pb_stream *s, int64_t v)
{
	s->ev.has_counter_value = 1;
	s->ev.counter_value = v;
}

void pb_extra_counter(struct pb_stream *s, uint64_t track, int64_t v)
{
	size_t i = s->ev.n_extra_counter_values;

	if (i == PB_MAX_COUNTERS)
		return;
	s->counter_tracks[i] = track;
	s->counter_values[i] = v;
	s->ev.n_extra_counter_track_uuids = s->ev.n_extra_counter_values = i + 1;
}

void pb_event_emit(struct pb_stream *s, uint64_t ts)
{
	Perfetto__Protos__TracePacket p;
	Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;

	packet_init(s, &p);
	p.has_timestamp = 1;
	if (ts >= s->last_ts) {		/* a delta on the default clock */
		p.timestamp = ts - s->last_ts;
		s->last_ts = ts;
	} else {
		/* earlier than the last packet (a finding stamped after its
		 * request's later events): absolute, leaving the deltas' base */
		p.timestamp = ts;
		p.has_timestamp_clock_id = 1;
		p.timestamp_clock_id = CLOCK_ID_MONOTONIC;
	}
	/* the default counter tracks, in their order: no uuids needed */
	if (s->ev.n_extra_counter_values &&
	    s->ev.n_extra_counter_values <= (size_t)s->n_default_counters &&
	    !memcmp(s->counter_tracks, s->default_counters,
		    s->ev.n_extra_counter_values * sizeof(uint64_t)))
		s->ev.n_extra_counter_track_uuids = 0;
	if (s->ev.track_uuid == s->default_track)
		s->ev.has_track_uuid = 0;
	p.track_event = &s->ev;
	if (s->n_new_names || s->n_new_anames || s->n_new_strings) {
		in.n_event_names = s->n_new_names;
		in.event_names = s->new_name_ptrs;
		in.n_debug_annotation_names = s->n_new_anames;
		in.debug_annotation_names = s->new_aname_ptrs;
		in.n_debug_annotation_string_values = s->n_new_strings;
		in.debug_annotation_string_values = s->new_string_ptrs;
		p.interned_data = &in;
	}
	write_packet(s, &p);
}
