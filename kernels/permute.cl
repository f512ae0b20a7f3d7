// Values the sort passes do not carry (any width but 4 and 8 bytes) move once, after the keys are sorted
// with their input indices: permute_stage writes those indices and saves the values, permute_gather puts
// each saved value at its key's position. argsort of device keys starts from
// permute_iota32 or permute_iota64.
//
// A value is PERM_UNITS units of PERM_UNIT bytes, the widest of 16, 8, 4, 2, 1 that divides its width,
// and each work-item moves one unit: consecutive work-items write consecutive units (coalesced), and
// the units of one value are read together. Ids are size_t: n * PERM_UNITS may pass 2^32, and work-items
// loop over the range so that no launch needs more than the host asked for.

#ifndef PERM_UNIT
#define PERM_UNIT 4
#endif
#ifndef PERM_UNITS
#define PERM_UNITS 1
#endif

#if PERM_UNIT == 16
typedef uint4 unit_t;
#elif PERM_UNIT == 8
typedef uint2 unit_t;
#elif PERM_UNIT == 4
typedef uint unit_t;
#elif PERM_UNIT == 2
typedef ushort unit_t;
#elif PERM_UNIT == 1
typedef uchar unit_t;
#else
#error "PERM_UNIT must be 1, 2, 4, 8 or 16"
#endif

// index[i] = i and saved = values, for the n elements.
kernel void permute_stage(global uint* index, global const unit_t* values, global unit_t* saved, ulong n) {
  const size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < n; i += stride) index[i] = (uint)i;
  const ulong units = n * PERM_UNITS;
  for (size_t u = get_global_id(0); u < units; u += stride) saved[u] = values[u];
}

// values[i] = saved[index[i]], unit by unit.
kernel void permute_gather(global const unit_t* saved, global const uint* index, global unit_t* values,
                           ulong n) {
  const size_t stride = get_global_size(0);
  const ulong units = n * PERM_UNITS;
  for (size_t u = get_global_id(0); u < units; u += stride) {
    const size_t e = u / PERM_UNITS;
    values[u] = saved[(size_t)index[e] * PERM_UNITS + (u - e * PERM_UNITS)];
  }
}

// index[i] = i: the indices argsort of device keys sorts with a copy of the keys.
kernel void permute_iota32(global uint* index, ulong n) {
  const size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < n; i += stride) index[i] = (uint)i;
}

kernel void permute_iota64(global ulong* index, ulong n) {
  const size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < n; i += stride) index[i] = i;
}
