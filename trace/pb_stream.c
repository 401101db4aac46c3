// SPDX-License-Identifier: GPL-2.0
#include "pb_stream.h"

#include "uringcheck_perfetto.pb-c.h"

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
/* Packets are gathered to this many bytes before a write: at fio's
 * rates a stdio buffer's worth (8 KiB) was a write(2) every 60 requests. */
#define OUT_FLUSH		(256 * 1024)

/* The field numbers written here (Perfetto's, as in
 * trace/uringcheck_perfetto.proto), in the order protobuf-c writes them:
 * ascending, so the bytes are the ones it would write. */
enum {
	F_TRACE_PACKET = 1,
	F_PACKET_TIMESTAMP = 8, F_PACKET_SEQUENCE_ID = 10, F_PACKET_TRACK_EVENT = 11,
	F_PACKET_INTERNED_DATA = 12, F_PACKET_SEQUENCE_FLAGS = 13,
	F_PACKET_TIMESTAMP_CLOCK_ID = 58,
	F_EVENT_ANNOTATION = 4, F_EVENT_TYPE = 9, F_EVENT_NAME_IID = 10,
	F_EVENT_TRACK_UUID = 11, F_EVENT_EXTRA_COUNTER_VALUE = 12, F_EVENT_COUNTER_VALUE = 30,
	F_EVENT_EXTRA_COUNTER_TRACK = 31, F_EVENT_FLOW_ID = 47, F_EVENT_TERMINATING_FLOW_ID = 48,
	F_ANNOT_NAME_IID = 1, F_ANNOT_UINT = 3, F_ANNOT_INT = 4, F_ANNOT_STRING = 6,
	F_ANNOT_ARRAY_VALUE = 12, F_ANNOT_STRING_IID = 17,
	F_INTERNED_EVENT_NAME = 2, F_INTERNED_ANNOT_NAME = 3, F_INTERNED_STRING_VALUE = 29,
	F_INTERNED_IID = 1, F_INTERNED_NAME = 2,	/* in each of those */
};

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

/* Hands the gathered packets to the file. */
static void out_flush(struct pb_stream *s)
{
	if (s->out.len && s->f && fwrite(s->out.p, 1, s->out.len, s->f) != s->out.len)
		s->failed = true;
	s->out.len = 0;
}

/* One packet, @len bytes at @pkt, as field 1 of Trace: tag, length, the
 * packet. */
static void out_packet(struct pb_stream *s, const uint8_t *pkt, size_t len)
{
	size_t before = s->out.len;

	pbw_bytes(&s->out, F_TRACE_PACKET, pkt, len);
	if (s->out.failed) {
		s->failed = true;
		return;
	}
	s->packets++;
	s->bytes += s->out.len - before;
	if (s->out.len >= OUT_FLUSH)
		out_flush(s);
}

/* A rare packet (the first, a track descriptor), packed by protobuf-c. */
static void write_packet(struct pb_stream *s, Perfetto__Protos__TracePacket *p)
{
	size_t len = perfetto__protos__trace_packet__get_packed_size(p);
	uint8_t stackbuf[4096], *buf = len <= sizeof(stackbuf) ? stackbuf : malloc(len);

	if (!buf) {
		s->failed = true;
		return;
	}
	perfetto__protos__trace_packet__pack(p, buf);
	out_packet(s, buf, len);
	if (buf != stackbuf)
		free(buf);
}

/* The first packet clears the sequence's interning state; every one after
 * may use it. */
static uint32_t sequence_flags(struct pb_stream *s)
{
	uint32_t flags = s->started ?
		PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE :
		PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;

	s->started = true;
	return flags;
}

static void packet_init(struct pb_stream *s, Perfetto__Protos__TracePacket *p)
{
	perfetto__protos__trace_packet__init(p);
	p->has_trusted_packet_sequence_id = 1;
	p->trusted_packet_sequence_id = SEQUENCE_ID;
	p->has_sequence_flags = 1;
	p->sequence_flags = sequence_flags(s);
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
	int err;

	out_flush(s);
	err = s->failed;
	if (s->f && fclose(s->f))
		err = 1;
	free(s->out.p);
	free(s->annots.p);
	free(s->body.p);
	free(s->array.p);
	free(s->new_names.p);
	free(s->new_anames.p);
	free(s->new_strings.p);
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


/* ---- events: written field by field ---------------------------------- */

_Static_assert(PB_SLICE_BEGIN == (int)PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN &&
	       PB_SLICE_END == (int)PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END &&
	       PB_INSTANT == (int)PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT &&
	       PB_COUNTER == (int)PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER,
	       "TrackEvent.Type as in the proto");

/* An interned name or string, as a field of InternedData in @b: its iid
 * and its text. */
static void interned_entry(struct pbw_buf *b, unsigned field, uint64_t iid, const char *str,
			   size_t len)
{
	size_t body = pbw_varint_field_size(F_INTERNED_IID, iid) +
		      pbw_bytes_field_size(F_INTERNED_NAME, len);

	if (!pbw_open(b, field, body))
		return;
	pbw_varint(b, F_INTERNED_IID, iid);
	pbw_bytes(b, F_INTERNED_NAME, str, len);
}

static void event_start(struct pb_stream *s, int type, uint64_t track)
{
	s->ev_type = type;
	s->ev_track = track;
	s->ev_has_name = s->ev_has_counter = false;
	s->annots.len = s->new_names.len = s->new_anames.len = s->new_strings.len = 0;
	s->n_annots = s->n_flows = s->n_term_flows = s->n_counters = 0;
}

static void event_name(struct pb_stream *s, const char *name)
{
	bool fresh;

	s->ev_has_name = true;
	s->ev_name_iid = intern(s, T_EVENT_NAME, name, &fresh);
	if (fresh)
		interned_entry(&s->new_names, F_INTERNED_EVENT_NAME, s->ev_name_iid, name,
			       strlen(name));
}

void pb_event_begin(struct pb_stream *s, int type, uint64_t track, const char *name)
{
	__typeof__(s->name_cache[0]) *c;

	event_start(s, type, track);
	if (!name)
		return;
	/* a few events a request, their names from a handful of
	 * addresses: found without hashing the string */
	c = &s->name_cache[((uintptr_t)name >> 3) % (sizeof(s->name_cache) /
						     sizeof(s->name_cache[0]))];
	if (c->name == name) {
		s->ev_has_name = true;
		s->ev_name_iid = c->iid;
		return;
	}
	event_name(s, name);
	c->name = name;
	c->iid = s->ev_name_iid;
}

void pb_event_begin_text(struct pb_stream *s, int type, uint64_t track, const char *name)
{
	event_start(s, type, track);
	if (name)
		event_name(s, name);
}

/* An annotation's name, interned (sent with the event if new): most are
 * found by address, without a hash of the string (eight annotations a
 * request, their names literals). 0: the event has its PB_MAX_ANNOTS. */
static uint64_t annot_name(struct pb_stream *s, const char *name)
{
	__typeof__(s->annot_cache[0]) *c;
	uint64_t iid;
	bool fresh = false;

	if (s->n_annots == PB_MAX_ANNOTS)
		return 0;
	c = &s->annot_cache[((uintptr_t)name >> 3) % (sizeof(s->annot_cache) /
						      sizeof(s->annot_cache[0]))];
	if (c->name == name) {
		iid = c->iid;
	} else {
		iid = intern(s, T_ANNOT_NAME, name, &fresh);
		c->name = name;
		c->iid = iid;
	}
	if (fresh)
		interned_entry(&s->new_anames, F_INTERNED_ANNOT_NAME, iid, name, strlen(name));
	s->n_annots++;
	return iid;
}

/* Opens a DebugAnnotation named @name as field 4 of the event, its name
 * written: the caller writes its value, @value bytes. False if the event
 * has its PB_MAX_ANNOTS or there is no room. */
static bool annot_open(struct pb_stream *s, const char *name, size_t value)
{
	uint64_t iid = annot_name(s, name);

	if (!iid || !pbw_open(&s->annots, F_EVENT_ANNOTATION,
			      pbw_varint_field_size(F_ANNOT_NAME_IID, iid) + value))
		return false;
	pbw_varint(&s->annots, F_ANNOT_NAME_IID, iid);
	return true;
}

/* ... with a varint value (field @vfield). */
static void annot_varint(struct pb_stream *s, const char *name, unsigned vfield, uint64_t v)
{
	if (annot_open(s, name, pbw_varint_field_size(vfield, v)))
		pbw_varint(&s->annots, vfield, v);
}

void pb_annot_uint(struct pb_stream *s, const char *name, uint64_t v)
{
	annot_varint(s, name, F_ANNOT_UINT, v);
}

void pb_annot_int(struct pb_stream *s, const char *name, int64_t v)
{
	annot_varint(s, name, F_ANNOT_INT, (uint64_t)v);	/* two's complement */
}

static void annot_text(struct pb_stream *s, const char *name, const char *v, size_t len)
{
	if (annot_open(s, name, pbw_bytes_field_size(F_ANNOT_STRING, len)))
		pbw_bytes(&s->annots, F_ANNOT_STRING, v, len);
}

void pb_annot_str(struct pb_stream *s, const char *name, const char *v)
{
	annot_text(s, name, v, strlen(v));
}

void pb_annot_istr(struct pb_stream *s, const char *name, const char *v)
{
	bool fresh;
	uint64_t iid;

	if (s->n_annots == PB_MAX_ANNOTS)
		return;
	iid = intern(s, T_STRING, v, &fresh);
	if (!iid)
		return;
	if (fresh)
		interned_entry(&s->new_strings, F_INTERNED_STRING_VALUE, iid, v, strlen(v));
	annot_varint(s, name, F_ANNOT_STRING_IID, iid);
}

/* The iid of "0x..." text of @v, interned (sent with the event if new);
 * 0 past HEX_INTERN_MAX: then @text holds it, @len bytes. */
static uint64_t hex_iid(struct pb_stream *s, uint64_t v, char text[24], int *len)
{
	uint64_t iid = (uintptr_t)u64map_get(&s->hex_iids, v);

	if (iid)		/* the common case: no text needed */
		return iid;
	*len = snprintf(text, 24, "0x%llx", (unsigned long long)v);
	if (s->hex_iids.count >= HEX_INTERN_MAX)
		return 0;
	iid = ++s->next_string_iid;
	u64map_put(&s->hex_iids, v, (void *)(uintptr_t)iid);
	interned_entry(&s->new_strings, F_INTERNED_STRING_VALUE, iid, text, *len);
	return iid;
}

void pb_annot_hex(struct pb_stream *s, const char *name, uint64_t v)
{
	char text[24];
	int len;
	uint64_t iid;

	if (s->n_annots == PB_MAX_ANNOTS)
		return;
	iid = hex_iid(s, v, text, &len);
	if (iid)
		annot_varint(s, name, F_ANNOT_STRING_IID, iid);
	else
		annot_text(s, name, text, len);
}

/* An array annotation whose elements are in s->array (each a field 12
 * of DebugAnnotation, in wire form). */
static void annot_array(struct pb_stream *s, const char *name)
{
	if (!s->array.failed && annot_open(s, name, s->array.len))
		pbw_put_bytes_raw(&s->annots, s->array.p, s->array.len);
}

/* One element: a DebugAnnotation of a single value field. */
static void array_varint(struct pb_stream *s, unsigned vfield, uint64_t v)
{
	if (pbw_open(&s->array, F_ANNOT_ARRAY_VALUE, pbw_varint_field_size(vfield, v)))
		pbw_varint(&s->array, vfield, v);
}

void pb_annot_hex_array(struct pb_stream *s, const char *name, const uint64_t *v, int n)
{
	if (s->n_annots == PB_MAX_ANNOTS)
		return;
	s->array.len = 0;
	for (int i = 0; i < n; i++) {
		char text[24];
		int len;
		uint64_t iid = hex_iid(s, v[i], text, &len);

		if (iid)
			array_varint(s, F_ANNOT_STRING_IID, iid);
		else if (pbw_open(&s->array, F_ANNOT_ARRAY_VALUE,
				  pbw_bytes_field_size(F_ANNOT_STRING, len)))
			pbw_bytes(&s->array, F_ANNOT_STRING, text, len);
	}
	annot_array(s, name);
}

void pb_annot_uint_array(struct pb_stream *s, const char *name, const uint64_t *v, int n)
{
	if (s->n_annots == PB_MAX_ANNOTS)
		return;
	s->array.len = 0;
	for (int i = 0; i < n; i++)
		array_varint(s, F_ANNOT_UINT, v[i]);
	annot_array(s, name);
}

void pb_flow(struct pb_stream *s, uint64_t id, bool terminating)
{
	if (terminating && s->n_term_flows < PB_MAX_FLOWS)
		s->term_flows[s->n_term_flows++] = id;
	else if (!terminating && s->n_flows < PB_MAX_FLOWS)
		s->flows[s->n_flows++] = id;
}

void pb_counter(struct pb_stream *s, int64_t v)
{
	s->ev_has_counter = true;
	s->ev_counter = v;
}

void pb_extra_counter(struct pb_stream *s, uint64_t track, int64_t v)
{
	if (s->n_counters == PB_MAX_COUNTERS)
		return;
	s->counter_tracks[s->n_counters] = track;
	s->counter_values[s->n_counters++] = v;
}

/* The TrackEvent's fields after its annotations, into s->body. */
static void event_body(struct pb_stream *s)
{
	struct pbw_buf *b = &s->body;
	/* the default counter tracks, in their order: no uuids needed */
	bool default_counters = s->n_counters && s->n_counters <= s->n_default_counters &&
		!memcmp(s->counter_tracks, s->default_counters,
			s->n_counters * sizeof(uint64_t));

	b->len = 0;
	if (!pbw_reserve(b, s->annots.len))
		return;
	pbw_put_bytes_raw(b, s->annots.p, s->annots.len);
	pbw_varint(b, F_EVENT_TYPE, (uint64_t)s->ev_type);
	if (s->ev_has_name)
		pbw_varint(b, F_EVENT_NAME_IID, s->ev_name_iid);
	if (s->ev_track != s->default_track)
		pbw_varint(b, F_EVENT_TRACK_UUID, s->ev_track);
	for (int i = 0; i < s->n_counters; i++)
		pbw_varint(b, F_EVENT_EXTRA_COUNTER_VALUE, (uint64_t)s->counter_values[i]);
	if (s->ev_has_counter)
		pbw_varint(b, F_EVENT_COUNTER_VALUE, (uint64_t)s->ev_counter);
	for (int i = 0; i < s->n_counters && !default_counters; i++)
		pbw_varint(b, F_EVENT_EXTRA_COUNTER_TRACK, s->counter_tracks[i]);
	for (int i = 0; i < s->n_flows; i++)
		pbw_fixed64(b, F_EVENT_FLOW_ID, s->flows[i]);
	for (int i = 0; i < s->n_term_flows; i++)
		pbw_fixed64(b, F_EVENT_TERMINATING_FLOW_ID, s->term_flows[i]);
}

void pb_event_emit(struct pb_stream *s, uint64_t ts)
{
	size_t interned = s->new_names.len + s->new_anames.len + s->new_strings.len, len;
	uint64_t stamp = ts;
	uint32_t flags = sequence_flags(s);
	bool absolute = ts < s->last_ts;
	struct pbw_buf pkt;
	/* a packet is mostly under 128 bytes; a report's text may be more */
	uint8_t small[512];

	if (!absolute) {		/* a delta on the default clock */
		stamp = ts - s->last_ts;
		s->last_ts = ts;
	}
	/* else earlier than the last packet (a finding stamped after its
	 * request's later events): absolute, leaving the deltas' base */
	event_body(s);
	len = pbw_varint_field_size(F_PACKET_TIMESTAMP, stamp) +
	      pbw_varint_field_size(F_PACKET_SEQUENCE_ID, SEQUENCE_ID) +
	      pbw_bytes_field_size(F_PACKET_TRACK_EVENT, s->body.len) +
	      (interned ? pbw_bytes_field_size(F_PACKET_INTERNED_DATA, interned) : 0) +
	      pbw_varint_field_size(F_PACKET_SEQUENCE_FLAGS, flags) +
	      (absolute ? pbw_varint_field_size(F_PACKET_TIMESTAMP_CLOCK_ID,
						  CLOCK_ID_MONOTONIC) : 0);
	pkt = (struct pbw_buf){ .p = small, .cap = sizeof(small) };
	if (len + PBW_SLACK > sizeof(small))
		pkt = (struct pbw_buf){ 0 };
	if (s->annots.failed || s->body.failed || s->new_names.failed ||
	    s->new_anames.failed || s->new_strings.failed ||
	    !pbw_reserve(&pkt, len + PBW_SLACK)) {
		s->failed = true;
		return;
	}
	pbw_varint(&pkt, F_PACKET_TIMESTAMP, stamp);
	pbw_varint(&pkt, F_PACKET_SEQUENCE_ID, SEQUENCE_ID);
	pbw_bytes(&pkt, F_PACKET_TRACK_EVENT, s->body.p, s->body.len);
	if (interned) {
		pbw_open(&pkt, F_PACKET_INTERNED_DATA, interned);	/* room reserved */
		pbw_put_bytes_raw(&pkt, s->new_names.p, s->new_names.len);
		pbw_put_bytes_raw(&pkt, s->new_anames.p, s->new_anames.len);
		pbw_put_bytes_raw(&pkt, s->new_strings.p, s->new_strings.len);
	}
	pbw_varint(&pkt, F_PACKET_SEQUENCE_FLAGS, flags);
	if (absolute)
		pbw_varint(&pkt, F_PACKET_TIMESTAMP_CLOCK_ID, CLOCK_ID_MONOTONIC);
	out_packet(s, pkt.p, pkt.len);
	if (pkt.p != small)
		free(pkt.p);
}
