// Odd-even transposition sort: tiles of ODD_EVEN_TILE keys sorted in local memory by element phases
// (even then odd neighbour pairs, one barrier each), then, for n beyond one tile, the same algorithm over
// tiles (Baudet and Stevenson's odd-even merge-split): in block phase p the tile pairs (2i + p%2,
// 2i + p%2 + 1) are merged and split, the lower half staying left. As many block phases as tiles sort.
//
// Only neighbours strictly out of order are exchanged and merges take the left tile's key on ties, so
// equal keys never pass each other: the sort is stable and values travel with their keys. Positions past
// n are padded with the largest key in local memory only; pads never move before a real key.

#ifndef ODD_EVEN_WG
#define ODD_EVEN_WG 256
#endif
#ifndef ODD_EVEN_TILE
#define ODD_EVEN_TILE 1024  // a multiple of 2 * ODD_EVEN_WG
#endif
#define ODD_EVEN_ITEMS (2 * ODD_EVEN_TILE / ODD_EVEN_WG)  // outputs per work-item of a merge-split

#if VALUE_BYTES != 0
#define VALUE_PARAM , global value_t *values
#else
#define VALUE_PARAM
#endif

MERGE_TO_REGS(odd_even_to_regs, ODD_EVEN_ITEMS)
STORE_REGS(odd_even_store_regs, ODD_EVEN_ITEMS)

// Encodes and sorts each tile by m element phases (m = the tile's real keys); decodes if it is the sort.
kernel __attribute__((reqd_work_group_size(ODD_EVEN_WG, 1, 1))) void odd_even_local(
    global gkey_t* keys VALUE_PARAM, uint n, uint kind, uint descending, uint decode) {
  local ukey_t lk[ODD_EVEN_TILE];
#if VALUE_BYTES != 0
  local value_t lv[ODD_EVEN_TILE];
#endif
  const uint lid = get_local_id(0), base = get_group_id(0) * ODD_EVEN_TILE;
  const uint m = min((uint)ODD_EVEN_TILE, n - base);
  for (uint j = lid; j < ODD_EVEN_TILE; j += ODD_EVEN_WG) {
    lk[j] = j < m ? encode_key(keys[base + j], kind, descending) : KEY_MAX;
#if VALUE_BYTES != 0
    if (j < m) lv[j] = values[base + j];
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint phase = 0; phase < m; ++phase) {
    for (uint t = lid; t < ODD_EVEN_TILE / 2; t += ODD_EVEN_WG) {
      const uint i = 2 * t + (phase & 1u);
      if (i + 1 < m) {
        const ukey_t a = lk[i], b = lk[i + 1];
        if (a > b) {
          lk[i] = b;
          lk[i + 1] = a;
#if VALUE_BYTES != 0
          const value_t va = lv[i];
          lv[i] = lv[i + 1];
          lv[i + 1] = va;
#endif
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint j = lid; j < m; j += ODD_EVEN_WG) {
    keys[base + j] = decode ? decode_key(lk[j], kind, descending) : lk[j];
#if VALUE_BYTES != 0
    values[base + j] = lv[j];
#endif
  }
}

// Block phase `phase`: work-group i merges tiles 2i + phase%2 and the next one (if it has keys) and
// writes the lowest ODD_EVEN_TILE keys back to the left tile, the rest to the right one.
kernel __attribute__((reqd_work_group_size(ODD_EVEN_WG, 1, 1))) void odd_even_merge_split(
    global gkey_t* keys VALUE_PARAM, uint n, uint phase) {
  local ukey_t lk[2 * ODD_EVEN_TILE];
#if VALUE_BYTES != 0
  local value_t lv[2 * ODD_EVEN_TILE];
  local uint lo[2 * ODD_EVEN_TILE];
#endif
  const uint lid = get_local_id(0);
  const uint base = (2 * get_group_id(0) + (phase & 1u)) * ODD_EVEN_TILE;
  if (base + ODD_EVEN_TILE >= n) return;  // no right tile: uniform across the work-group
  const uint count = min(2u * ODD_EVEN_TILE, n - base), nb = count - ODD_EVEN_TILE;
  for (uint j = lid; j < count; j += ODD_EVEN_WG) {
    lk[j] = keys[base + j];
#if VALUE_BYTES != 0
    lv[j] = values[base + j];
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  ukey_t k[ODD_EVEN_ITEMS];
  uint o[ODD_EVEN_ITEMS];
  const uint first = lid * ODD_EVEN_ITEMS;
  odd_even_to_regs(lk, ODD_EVEN_TILE, lk + ODD_EVEN_TILE, nb, min(first, count), k, o);
  barrier(CLK_LOCAL_MEM_FENCE);
  odd_even_store_regs(lk, WITH_VALUES(lo, ) k, o, first, count);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint q = lid; q < count; q += ODD_EVEN_WG) {
    keys[base + q] = lk[q];
#if VALUE_BYTES != 0
    values[base + q] = lv[lo[q]];  // lv still holds the loaded order
#endif
  }
}
