/* Cutting keys out of fused tensors (see checkpoint_internal.h), and
 * --fused for a plan of tensors chosen by name (ha_checkpoint_fuse,
 * checkpoint.h). */
#include <string.h>

#include "base/error_internal.h"
#include "checkpoint/checkpoint_internal.h"

enum ha_status ckpt_key_slice(const char *name, enum ha_fused fused,
                              enum ha_fused_order order, uint64_t outputs,
                              size_t heads, struct ckpt_key_slice *s,
                              struct ha_error *err)
{
	uint64_t parts = fused == HA_FUSED_QKV ? 3 : fused == HA_FUSED_KV ? 2 : 1;
	const char *what = fused == HA_FUSED_QKV ? "q|k|v" : "k|v";
	memset(s, 0, sizeof *s);
	if (heads == 0)
		return ha_fail(err, HA_EINVAL, "tensor '%s': heads must be >= 1",
		               name);
	if (outputs % parts != 0)
		return ha_fail(err, HA_EINVAL,
		               "tensor '%s': its %llu outputs cannot hold %s "
		               "(not a multiple of %llu)", name,
		               (unsigned long long)outputs, what,
		               (unsigned long long)parts);
	uint64_t block = outputs / parts; /* D, the keys' width */
	if (block == 0 || block % heads != 0)
		return ha_fail(err, HA_EINVAL,
		               "tensor '%s': %zu heads do not divide its %llu key "
		               "outputs%s", name, heads,
		               (unsigned long long)block,
		               parts == 1 ? "" : fused == HA_FUSED_QKV
		                                  ? " (a third of the q|k|v block)"
		                                  : " (half of the k|v block)");
	size_t d = (size_t)(block / heads);
	s->head_dim = d;
	s->key_stride = d;
	if (parts == 1) {
		s->fusion = HA_FUSION_SEPARATE;
	} else if (order == HA_FUSED_CONCAT) {
		s->fusion = HA_FUSION_CONCATENATED;
		s->key_offset = fused == HA_FUSED_QKV ? (size_t)block : 0;
	} else {
		s->fusion = HA_FUSION_PER_HEAD;
		s->key_offset = fused == HA_FUSED_QKV ? d : 0;
		s->key_stride = (size_t)parts * d;
	}
	return HA_OK;
}

void ckpt_key_cut(double *data, size_t width, size_t model_dim,
                  enum ha_layout layout, size_t key_heads,
                  const struct ckpt_key_slice *s)
{
	/* Every destination precedes its source, since a group's stride
	 * spans its heads: memmove in increasing order is safe. */
	size_t dk = s->head_dim, kd = key_heads * dk, md = model_dim;
	if (layout == HA_LAYOUT_OUT_IN) {
		for (size_t h = 0; h < key_heads; h++)
			memmove(data + h * dk * md, data + ckpt_head_at(s, h) * md,
			        dk * md * sizeof *data);
		return;
	}
	for (size_t i = 0; i < md; i++)
		for (size_t h = 0; h < key_heads; h++)
			memmove(data + i * kd + h * dk,
			        data + i * width + ckpt_head_at(s, h),
			        dk * sizeof *data);
}

enum ha_status ha_checkpoint_fuse(struct ha_checkpoint *c,
                                  enum ha_fused fused,
                                  enum ha_fused_order order,
                                  struct ha_error *err)
{
	ha_error_init(err);
	if (!c)
		return ha_fail(err, HA_EINVAL, "NULL argument");
	if (fused == HA_FUSED_NONE)
		return HA_OK;
	if (c->fusion != HA_FUSION_SEPARATE || c->count == 0)
		return ha_fail(err, HA_EINVAL, "the plan's keys are not whole "
		               "tensors chosen by name");
	const struct ha_checkpoint_layer *ly = &c->layers[0];
	uint64_t outputs = c->layout == HA_LAYOUT_OUT_IN ? ly->rows : ly->cols;
	struct ckpt_key_slice s;
	enum ha_status st = ckpt_key_slice(ly->tensor, fused, order, outputs,
	                                   c->key_heads, &s, err);
	if (st != HA_OK)
		return st;
	c->fusion = s.fusion;
	c->head_dim = s.head_dim;
	c->key_offset = s.key_offset;
	c->key_stride = s.key_stride;
	return HA_OK;
}
