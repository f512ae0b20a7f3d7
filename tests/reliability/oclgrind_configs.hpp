// The configurations oclgrind_kernels.cpp runs under Oclgrind, one per CTest entry
// (reliability/oclgrind/<name>, tests/reliability/CMakeLists.txt): the shape each checks, its tuning and
// sizes. Included by oclgrind_kernels.cpp alone.
#pragma once

#include <cstddef>
#include <vector>

#include "reference.hpp"

namespace {

using namespace reliability;

struct Config {
  const char* name;
  Algorithm algorithm;
  const char* tuning;
  std::vector<std::size_t> sizes;
  std::size_t every_type;  // the first sizes run every type and order; the rest one per key width
  // What runs instead of the sorts: top_k and select (kernels/radix_select.cl), lexsort (kernels/lexsort.cl
  // and the sorts by key), sort_custom (kernels/custom.cl; u8 runs a 1-byte struct, f32 a 12-byte one), the
  // segmented sort (kernels/segments.cl, segments_short.cl, segments_local.cl), or values of 12 and 3 bytes
  // (kernels/permute.cl) and argsort64.
  enum class Mode { sort, select, lexsort, custom, segments, wide };
  Mode mode = Mode::sort;
  // A Sorter per mode: scratch that a later mode would grow (the split path's, whose size follows the
  // value width) is then never freed and reallocated, which Oclgrind misreads (see main()).
  bool sorter_per_mode = false;
  // Only this key type (one case per process: the split path releases its sub-buffers, which Oclgrind
  // takes as freed memory, and a later case's buffers reusing it would be misread, see main()).
  const char* only = nullptr;
  // Mode::wide: the value widths sorted (12 and 16 in device buffers, others from the host).
  std::vector<std::size_t> value_widths = {12, 3};
};
using Mode = Config::Mode;

// Each configuration names the shape it checks (the device's row may pick another: Oclgrind's device takes
// the GPU row, Onesweep with the multisplit ranking). Sizes reach: 2 keys; a single partial block or tile;
// several groups with several blocks each and a partial last block (radix: block = wg * items); bitonic
// stages beyond the tile (global steps plus local merges) with n not a power of two; selection's partial last
// tile.
const Config kConfigs[] = {
    // 4-bit digits keep the per-digit scans short (Oclgrind runs each work-item of each of them).
    {"radix_gpu",
     Algorithm::radix,
     "radix.cpu=0 radix.onesweep=0 radix.match=0 radix.bits=4 radix.wg=16 radix.items=2 radix.groups=4",
     {29, 300},
     1},
    // The default 8-bit digits: two 4-bit splits per pass in the scatter.
    {"radix_gpu_bits8",
     Algorithm::radix,
     "radix.cpu=0 radix.onesweep=0 radix.match=0 radix.bits=8 radix.wg=8 radix.items=2 radix.groups=3",
     {61},
     0},
    // 5-bit digits: the splits run 4 + 1 bits, and the top digit is narrower (32 = 6 * 5 + 2); at 221 keys
    // 10 groups of 8 work-items, so the scan of each digit's counts takes two rounds.
    {"radix_gpu_odd",
     Algorithm::radix,
     "radix.cpu=0 radix.onesweep=0 radix.match=0 radix.bits=5 radix.wg=8 radix.items=3 radix.groups=16",
     {7, 221},
     1},
    // Onesweep: the histogram of every pass, look-back across tiles, skipped passes (few-unique keys), and
    // its self-test before the first sort of each program.
    {"radix_onesweep",
     Algorithm::radix,
     "radix.cpu=0 radix.onesweep=1 radix.bits=4 radix.wg=16 radix.items=2",
     {29, 300},
     1},
    // The look-back's recount (radix.spins=0: every tile counts the keys of every earlier one).
    {"radix_onesweep_recount",
     Algorithm::radix,
     "radix.cpu=0 radix.onesweep=1 radix.spins=0 radix.bits=4 radix.wg=16 radix.items=2",
     {300},
     0},
    // The multisplit ranking with local-memory sub-groups (the path of devices without sub-groups): two
    // groups of 8 work-items per work-group, with reduce-then-scan and with Onesweep.
    {"radix_multisplit",
     Algorithm::radix,
     "radix.cpu=0 radix.match=1 radix.subgroups=3 radix.bits=4 radix.wg=16 radix.items=2 radix.groups=4",
     {29, 300},
     1},
    {"radix_multisplit_onesweep",
     Algorithm::radix,
     "radix.cpu=0 radix.onesweep=1 radix.match=1 radix.subgroups=3 radix.bits=4 radix.wg=16 radix.items=2",
     {29, 300},
     1},
    {"radix_cpu", Algorithm::radix, "radix.cpu=1 radix.bits=8 radix.groups=4", {2, 300}, 2},
    // The CPU shape splits into chunks of at least 16384 keys: 16384 + 7 makes two; their MSD scatter
    // through write-combining lines (a chunk's first and last lines partial).
    {"radix_cpu_chunks",
     Algorithm::radix,
     "radix.cpu=1 radix.bits=8 radix.groups=4 radix.wc=16 radix.wc_min=0",
     {16384 + 7},
     0},
    // 16 buckets of about 190 keys, past insertion's length: their LSD passes, and 64-bit keys' top
    // passes and runs.
    {"radix_cpu_buckets", Algorithm::radix, "radix.cpu=1 radix.bits=4 radix.groups=2", {3001}, 0},
    // Bitonic, GPU shape: tiles of 32 sorted and merged in local memory, global launches fusing up to 2
    // steps; with tiles of 4, stages of up to 6 global steps use every fused width (1..6).
    {"bitonic",
     Algorithm::bitonic,
     "bitonic.cpu=0 bitonic.wg=8 bitonic.tile=32 bitonic.steps=2",
     {17, 300},
     1},
    {"bitonic_steps6",
     Algorithm::bitonic,
     "bitonic.cpu=0 bitonic.wg=2 bitonic.tile=4 bitonic.steps=6",
     {130},
     0},
    // Bitonic, CPU shape: a work-item per tile of 64, global steps as vector loops, two fused.
    {"bitonic_cpu", Algorithm::bitonic, "bitonic.cpu=1 bitonic.tile=64 bitonic.steps=6", {17, 300}, 1},
    // Selection: one part at 9 keys (the rank kernel scatters), two parts at 200 (partial ranks summed by
    // the scatter kernel).
    {"selection", Algorithm::selection, "selection.wg=8 selection.items=16", {2, 9, 200}, 2},
    // Merge, GPU shape: tiles of 16 (8 work-items x 2), merge-path partitions, 5 passes at 300 keys.
    {"merge", Algorithm::merge, "merge.cpu=0 merge.wg=8 merge.items=2", {2, 13, 300}, 2},
    // Merge, CPU shape: chunks of 16 sorted and merged sequentially, one work-item each.
    {"merge_cpu", Algorithm::merge, "merge.cpu=1 merge.chunk=16", {13, 300}, 1},
    // Odd-even transposition: tiles of 16 (4 work-items), 7 tiles and block phases at 100 keys.
    {"odd_even", Algorithm::odd_even, "odd_even.wg=4 odd_even.tile=16", {2, 9, 100}, 2},
    {"automatic",
     Algorithm::automatic,
     "bitonic.wg=8 bitonic.tile=32 auto.small_n=32 radix.cpu=0 radix.onesweep=0 radix.match=0 radix.bits=4 "
     "radix.wg=16 radix.items=2 radix.groups=4",
     {20, 70},
     1},
    // Values the passes do not carry: 12 bytes (4-byte units) in device buffers, 3 bytes (bytes) from the
    // host, each sorted as 32-bit indices and then gathered; argsort64 of device keys (its iota and copy).
    {"wide_values",
     Algorithm::radix,
     "radix.cpu=0 radix.onesweep=0 radix.match=0 radix.bits=4 radix.wg=16 radix.items=2 radix.groups=4",
     {29, 300},
     1,
     Mode::wide},
    // 16-byte values riding Onesweep's passes (radix.values16): uint4 values in the multisplit ranking's
    // local words, through the local-memory sub-groups.
    {"wide_values_ride",
     Algorithm::radix,
     "radix.cpu=0 radix.onesweep=1 radix.match=1 radix.subgroups=3 radix.bits=4 radix.wg=16 radix.items=2 "
     "radix.values16=1",
     {29, 300},
     1,
     Mode::wide,
     false,
     nullptr,
     {16}},
    // n past radix.split_min (2^32 by default): the stable partition by the top digit with 64-bit counts
    // (kernels/partition.cl), then each bucket's radix sort as a sub-buffer; keys alone and by key. Each
    // bucket is a sort of its own (Oclgrind runs every launch of each): f32 ascending, i64 descending. The
    // f32 specials crowd the bucket of the small positive codes past radix.split_max (24): it is
    // partitioned again by the next digit into the caller's buffers, its parts sorted there or through
    // the scratch. 4-bit digits: an even number of passes over the bits below each digit (6, 4 and 14), so
    // no bucket's result is copied back from scratch: Oclgrind 21.10 takes a clEnqueueCopyBuffer into a
    // sub-buffer to leave the whole parent uninitialized (a plain program that fills a buffer by a kernel,
    // copies into a sub-buffer of it and reads the parent shows it), and reports every later read of the
    // partitioned keys.
    {"radix_split",
     Algorithm::radix,
     "radix.split_min=40 radix.split_piece=32 radix.split_max=24 radix.cpu=0 radix.onesweep=0 radix.match=0 "
     "radix.bits=4 radix.wg=16 radix.items=2 radix.groups=4",
     {300},
     0,
     Mode::sort,
     true,
     "f32"},
    {"radix_split_i64",
     Algorithm::radix,
     "radix.split_min=40 radix.split_piece=32 radix.cpu=0 radix.onesweep=0 radix.match=0 radix.bits=4 "
     "radix.wg=16 radix.items=2 "
     "radix.groups=4",
     {50},
     0,
     Mode::sort,
     true,
     "i64"},
    // Radix selection, GPU shape: groups of 16 work-items x 3 keys looping over tiles (3 groups), every
    // level of the composite (key, index) reached through ties (few-unique keys), then top_k's sort of
    // the selection (one work-group's bitonic sort: k <= 67 fits the tile) and the gather.
    {"top_k",
     Algorithm::automatic,
     "select.wg=16 select.items=3 select.groups=3 bitonic.wg=8 bitonic.tile=128",
     {9, 200},
     1,
     Mode::select},
    // The CPU shape: one work-item per group, no local atomics.
    {"top_k_cpu",
     Algorithm::automatic,
     "select.wg=1 select.items=16 select.groups=4 bitonic.wg=8 bitonic.tile=128",
     {9, 200},
     1,
     Mode::select},
    // lexsort: the gather of each column through the permutation, and the sorts by key it runs (one
    // work-group's bitonic sort up to 32 rows, radix with 4-bit digits above).
    {"lexsort",
     Algorithm::automatic,
     "bitonic.wg=8 bitonic.tile=32 auto.small_n=32 radix.cpu=0 radix.onesweep=0 radix.match=0 radix.bits=4 "
     "radix.wg=16 radix.items=2 radix.groups=4",
     {20, 70},
     1,
     Mode::lexsort},
    // sort_custom's merge sort: tiles of 8 (4 work-items x 2) and merge passes; its bitonic network.
    {"custom", Algorithm::merge, "custom.wg=4 custom.items=2", {2, 13, 70}, 3, Mode::custom},
    {"custom_bitonic", Algorithm::bitonic, "", {13, 70}, 2, Mode::custom},
    // Segmented sort: local tiles of 64 slots (segments up to 16 keys sorted 8 work-items to a group) and
    // one segment of 100 keys among short ones (chunks of 32 and three merge passes plus the copy back),
    // keys only with 32-bit offsets and 8-byte values with 64-bit offsets, guard keys at both ends.
    {"segments",
     Algorithm::automatic,
     "segments.wg=8 segments.slots=64 segments.huge=1024",
     {40, 300},
     1,
     Mode::segments},
    // The radix CPU shape sorts a huge segment where it lies: the segment of 1100 keys starts off any
    // alignment, and its kernels read and write the caller's buffers from that offset (auto.small_n=0:
    // radix, not bitonic, for a segment that short).
    {"segments_huge_cpu",
     Algorithm::automatic,
     "segments.wg=8 segments.slots=64 segments.huge=1024 segments.seq=16 segments.radix=0 radix.cpu=1 "
     "radix.bits=4 radix.groups=2 auto.small_n=0",
     {1500},
     1,
     Mode::segments},
    // The CPU path: segments up to 64 keys sorted one work-item each (below 32 keys runs of 16 merged
    // through the scratch, from 32 the radix passes), the rest in tiles of 256 slots.
    {"segments_seq",
     Algorithm::automatic,
     "segments.wg=4 segments.slots=256 segments.seq=64 segments.seq_radix=32 segments.huge=1024",
     {40, 300},
     1,
     Mode::segments},
    // The same with segments.vec: groups of 16 segments (8 with values) up to 64 keys sorted together, one
    // per vector lane, where they fill a quarter of the group's slots; one work-item each otherwise.
    {"segments_vec",
     Algorithm::automatic,
     "segments.wg=4 segments.slots=256 segments.seq=64 segments.seq_radix=32 segments.vec=64 "
     "segments.huge=1024",
     {40, 300},
     1,
     Mode::segments},
    // The GPU path for segments of up to 16 keys: one work-item each, 8 to a group staging their span
    // through local memory. Every type at 40 keys; 300 keys (many groups) for f32 and i64 only, since every
    // type at 300 took over 4 minutes of the test command (2 cores).
    {"segments_staged",
     Algorithm::automatic,
     "segments.wg=8 segments.slots=64 segments.huge=1024 segments.seq=16 segments.seq_wg=8",
     {40, 300},
     1,
     Mode::segments},
    // Segments past the bins (16 keys) sorted by radix one work-group each (kernels/radix_segments.cl),
    // over tiles of 32 keys: the 100-key segment spans four. The portable ranking, then the multisplit one
    // over sub-groups emulated in local memory (4-bit digits: a work-item per digit), whose segments of
    // one tile stay in local memory through every pass.
    {"segments_radix",
     Algorithm::automatic,
     "segments.wg=8 segments.slots=64 segments.huge=1024 segments.radix=1024 radix.wg=8 radix.items=4",
     {40, 300},
     1,
     Mode::segments},
    {"segments_radix_match",
     Algorithm::automatic,
     "segments.wg=8 segments.slots=64 segments.huge=1024 segments.radix=1024 radix.cpu=0 radix.match=1 "
     "radix.subgroups=3 radix.bits=4 radix.wg=16 radix.items=2",
     {40, 300},
     1,
     Mode::segments},
};

}  // namespace
