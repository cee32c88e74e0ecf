// A model of the large pool of PyTorch's CUDA caching allocator [pytorch-cuda-alloc], to replay an
// allocation order and read what it reserves. c10/cuda/CUDACachingAllocator.cpp's rules, one stream:
//   - a request is rounded up to 512 B; one of at most 1 MiB goes to the small pool (its own 2 MiB
//     segments, never shared with large requests: not modelled, allocate() answers 0);
//   - a large request takes the smallest cached free block that holds it (best fit by size, then
//     address); the rest is split off as a free block when it is more than 1 MiB;
//   - with no such block it cudaMallocs a segment: 20 MiB for a request under 10 MiB, else the request
//     rounded up to 2 MiB; when that would pass the capacity, the segments with nothing allocated in
//     them are released first (release_cached_blocks) and the segment is tried again;
//   - a freed block merges with the free blocks beside it in its segment; nothing else is released.
// expandable_segments (one growing segment that unmaps free pages) is not this model.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <utility>

namespace vl {

class CachingAllocatorModel {
  public:
    // capacity_bytes: what cudaMalloc may take in all (>= 1.8e19: no limit; <= 0 or NaN: nothing).
    explicit CachingAllocatorModel(double capacity_bytes);

    // A handle for release(); 0 for a small-pool request; -1 when the request does not fit even after
    // releasing the empty segments (out_of_memory() is then true).
    int64_t allocate(double bytes);
    void release(int64_t handle);

    double reserved() const { return static_cast<double>(reserved_); }
    double peak_reserved() const { return static_cast<double>(peak_reserved_); }
    double peak_allocated() const { return static_cast<double>(peak_allocated_); }
    bool out_of_memory() const { return out_of_memory_; }
    double failed_request() const { return failed_request_; }  // the request that did not fit

  private:
    struct Block {
        uint64_t size = 0;
        uint64_t segment = 0;  // the address its segment starts at
        bool free = false;
    };
    void insert_free(uint64_t address, uint64_t size);
    bool release_empty_segments();

    uint64_t capacity_;
    std::map<uint64_t, Block> blocks_;                  // every block of every segment, by address
    std::set<std::pair<uint64_t, uint64_t>> free_;      // (size, address) of the free blocks
    std::map<uint64_t, uint64_t> segments_;             // start address -> size
    uint64_t next_segment_ = 0;                         // segments are laid out apart so blocks never merge across them
    uint64_t reserved_ = 0, peak_reserved_ = 0, allocated_ = 0, peak_allocated_ = 0;
    bool out_of_memory_ = false;
    double failed_request_ = 0;
};

}  // namespace vl
