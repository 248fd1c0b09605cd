/* Perfetto decoder: debug annotations as (key, value) text, the form every
 * args codec gives (strings as text, numbers as written, nested values as
 * compact JSON), and the count of fields this reader does not know. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_internal.h"
#include "trex/core/grow.h"

typedef Perfetto__Protos__DebugAnnotation pf_annotation;
typedef Perfetto__Protos__DebugAnnotation__NestedValue pf_nested;

/* JSON string body with quotes; control characters as \u escapes. */
static bool json_string(struct pf_text *t, const char *s)
{
	if (!pf_text_append(t, "\"", 1))
		return false;
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		bool ok;
		if (c == '"' || c == '\\')
			ok = pf_text_append(t, "\\", 1) && pf_text_append(t, p, 1);
		else if (c < 0x20)
			ok = pf_text_printf(t, "\\u%04x", c);
		else
			ok = pf_text_append(t, p, 1);
		if (!ok)
			return false;
	}
	return pf_text_append(t, "\"", 1);
}

bool pf_json_string(struct pf_text *t, const char *s)
{
	return json_string(t, s);
}

/* The shortest %g that reads back as the same double; JSON has no NaN or
 * infinity, so those are written as strings inside JSON. */
static bool double_text(struct pf_text *t, double v, bool in_json)
{
	char buf[40];

	if (!isfinite(v))
		return in_json ? json_string(t, isnan(v) ? "NaN"
		                                : v > 0  ? "Infinity"
		                                         : "-Infinity")
		               : pf_text_printf(t, "%s",
		                                isnan(v) ? "NaN"
		                                : v > 0  ? "Infinity"
		                                         : "-Infinity");
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return pf_text_printf(t, "%s", buf);
}

static bool nested_text(struct pf_text *t, const pf_nested *v)
{
	bool ok = true;

	switch (v->nested_type) {
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__NESTED_VALUE__NESTED_TYPE__DICT:
		ok = pf_text_append(t, "{", 1);
		for (size_t i = 0; ok && i < v->n_dict_keys; i++) {
			ok = (i == 0 || pf_text_append(t, ",", 1)) &&
			     json_string(t, v->dict_keys[i]) && pf_text_append(t, ":", 1);
			if (ok && i < v->n_dict_values)
				ok = nested_text(t, v->dict_values[i]);
			else if (ok)
				ok = pf_text_append(t, "null", 4);
		}
		return ok && pf_text_append(t, "}", 1);
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__NESTED_VALUE__NESTED_TYPE__ARRAY:
		ok = pf_text_append(t, "[", 1);
		for (size_t i = 0; ok && i < v->n_array_values; i++)
			ok = (i == 0 || pf_text_append(t, ",", 1)) &&
			     nested_text(t, v->array_values[i]);
		return ok && pf_text_append(t, "]", 1);
	default:
		break;
	}
	if (v->has_int_value)
		return pf_text_printf(t, "%lld", (long long)v->int_value);
	if (v->has_double_value)
		return double_text(t, v->double_value, true);
	if (v->has_bool_value)
		return pf_text_printf(t, "%s", v->bool_value ? "true" : "false");
	if (v->string_value)
		return json_string(t, v->string_value);
	return pf_text_append(t, "null", 4);
}

struct ann_ctx {
	struct pf_decoder *d;
	struct pf_seq *seq;
	bool interned;
};

static const char *ann_name(struct ann_ctx *c, const pf_annotation *a)
{
	if (a->name_field_case == PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME)
		return a->name;
	if (a->name_field_case != PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID)
		return "";
	c->interned = true;
	const char *s = pf_dict_get(&c->seq->annotation_names, a->name_iid);
	if (!s)
		c->d->stats->unresolved_iids++;
	return s ? s : "";
}

static bool ann_value(struct ann_ctx *c, struct pf_text *t, const pf_annotation *a, bool in_json);

/* dict_entries as a JSON object, array_values as a JSON array. */
static bool ann_children(struct ann_ctx *c, struct pf_text *t, const pf_annotation *a)
{
	bool dict = a->n_dict_entries > 0;
	size_t n = dict ? a->n_dict_entries : a->n_array_values;
	pf_annotation *const *kids = dict ? a->dict_entries : a->array_values;
	bool ok = pf_text_append(t, dict ? "{" : "[", 1);

	for (size_t i = 0; ok && i < n; i++) {
		ok = i == 0 || pf_text_append(t, ",", 1);
		if (ok && dict)
			ok = json_string(t, ann_name(c, kids[i])) && pf_text_append(t, ":", 1);
		ok = ok && ann_value(c, t, kids[i], true);
	}
	return ok && pf_text_append(t, dict ? "}" : "]", 1);
}

static bool ann_string(struct pf_text *t, const char *s, bool in_json)
{
	return in_json ? json_string(t, s) : pf_text_append(t, s, strlen(s));
}

static bool ann_value(struct ann_ctx *c, struct pf_text *t, const pf_annotation *a, bool in_json)
{
	const char *s;

	switch (a->value_case) {
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE:
		return pf_text_printf(t, "%s", a->bool_value ? "true" : "false");
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE:
		return pf_text_printf(t, "%llu", (unsigned long long)a->uint_value);
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE:
		return pf_text_printf(t, "%lld", (long long)a->int_value);
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE:
		return double_text(t, a->double_value, in_json);
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_POINTER_VALUE:
		if (in_json)
			return pf_text_printf(t, "\"0x%llx\"",
			                      (unsigned long long)a->pointer_value);
		return pf_text_printf(t, "0x%llx", (unsigned long long)a->pointer_value);
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_NESTED_VALUE:
		return nested_text(t, a->nested_value);
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_LEGACY_JSON_VALUE:
		return pf_text_append(t, a->legacy_json_value, strlen(a->legacy_json_value));
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE:
		return ann_string(t, a->string_value, in_json);
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID:
		c->interned = true;
		s = pf_dict_get(&c->seq->annotation_strings, a->string_value_iid);
		if (!s)
			c->d->stats->unresolved_iids++;
		return ann_string(t, s ? s : "", in_json);
	default:
		break;
	}
	if (a->n_dict_entries || a->n_array_values)
		return ann_children(c, t, a);
	return in_json ? pf_text_append(t, "null", 4) : true;
}

/* Whether a top-level value's text is no JSON literal (ann_value writes
 * strings, pointers and non-finite doubles bare, absent values empty). */
static bool value_is_text(const pf_annotation *a)
{
	switch (a->value_case) {
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE:
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE:
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE:
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_NESTED_VALUE:
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_LEGACY_JSON_VALUE:
		return false;
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE:
		return !isfinite(a->double_value);
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_POINTER_VALUE:
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE:
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID:
		return true;
	default:
		return !(a->n_dict_entries || a->n_array_values);
	}
}

static bool args_room(struct pf_decoder *d, size_t n)
{
	struct trex_pf_arg *v;

	if (!n)
		return true;
	v = trex_grow(d->args, &d->cap_args, n, sizeof(*v), 16);
	if (v)
		d->args = v;
	return v != NULL;
}

/* While collecting, key and value hold offsets into d->scratch (the
 * buffer moves as it grows); pf_args_finish makes them pointers. */
static const char *offset_as_pointer(size_t off)
{
	return (const char *)(uintptr_t)off;
}

int64_t pf_args_collect(struct pf_decoder *d, struct pf_seq *s,
                        Perfetto__Protos__DebugAnnotation *const *anns, size_t n, bool *interned)
{
	struct ann_ctx c = {d, s, false};

	if (!args_room(d, n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *key = ann_name(&c, anns[i]);
		size_t key_off = d->scratch.len;
		if (!pf_text_append(&d->scratch, key, strlen(key) + 1))
			return -1;
		size_t value_off = d->scratch.len;
		if (!ann_value(&c, &d->scratch, anns[i], false) ||
		    !pf_text_append(&d->scratch, "", 1))
			return -1;
		d->args[i].key = offset_as_pointer(key_off);
		d->args[i].value = offset_as_pointer(value_off);
		d->args[i].quoted = value_is_text(anns[i]);
	}
	*interned = c.interned;
	return (int64_t)n;
}

void pf_args_finish(struct pf_decoder *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		d->args[i].key = d->scratch.buf + (uintptr_t)d->args[i].key;
		d->args[i].value = d->scratch.buf + (uintptr_t)d->args[i].value;
	}
}

/* ---- unknown fields ----------------------------------------------------------------- */

/* Whether a oneof member (or an optional field) is the one present. */
static bool field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
	const char *base = (const char *)m;

	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		return *(const uint32_t *)(base + f->quantifier_offset) == f->id;
	return true;
}

/* The fields of desc that hold messages, listed once per message type
 * (a TracePacket has some 40 fields, a handful of them messages); NULL
 * when out of memory. */
static const struct pf_msg_fields *msg_fields(struct pf_decoder *d,
                                              const ProtobufCMessageDescriptor *desc)
{
	for (size_t i = 0; i < d->n_msg_fields; i++)
		if (d->msg_fields[i].desc == desc)
			return &d->msg_fields[i];
	struct pf_msg_fields *v =
	    trex_grow(d->msg_fields, &d->cap_msg_fields, d->n_msg_fields + 1, sizeof(*v), 16);
	if (!v)
		return NULL;
	d->msg_fields = v;
	struct pf_msg_fields *mf = &v[d->n_msg_fields];
	mf->desc = desc;
	mf->n = 0;
	mf->fields = malloc((desc->n_fields ? desc->n_fields : 1) * sizeof(*mf->fields));
	if (!mf->fields)
		return NULL;
	for (unsigned i = 0; i < desc->n_fields; i++)
		if (desc->fields[i].type == PROTOBUF_C_TYPE_MESSAGE)
			mf->fields[mf->n++] = &desc->fields[i];
	d->n_msg_fields++;
	return mf;
}

uint64_t pf_unknown_fields(struct pf_decoder *d, const ProtobufCMessage *m)
{
	const struct pf_msg_fields *mf = msg_fields(d, m->descriptor);
	const char *base = (const char *)m;
	uint64_t n = m->n_unknown_fields;

	if (!mf)
		return n; /* out of memory: the nested ones go uncounted */
	for (size_t i = 0; i < mf->n; i++) {
		const ProtobufCFieldDescriptor *f = mf->fields[i];
		if (!field_present(m, f))
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t count = *(const size_t *)(base + f->quantifier_offset);
			ProtobufCMessage *const *v =
			    *(ProtobufCMessage *const *const *)(base + f->offset);
			for (size_t k = 0; k < count; k++)
				n += pf_unknown_fields(d, v[k]);
		} else {
			const ProtobufCMessage *sub =
			    *(ProtobufCMessage *const *)(base + f->offset);
			if (sub)
				n += pf_unknown_fields(d, sub);
		}
	}
	return n;
}

void pf_msg_fields_free(struct pf_decoder *d)
{
	for (size_t i = 0; i < d->n_msg_fields; i++)
		free(d->msg_fields[i].fields);
	free(d->msg_fields);
}
