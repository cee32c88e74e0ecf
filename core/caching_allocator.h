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
#include <vector>

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
    // A new segment would have passed the capacity (the empty segments were released, or it was out of
    // memory): the cache of freed blocks filled the memory it may take.
    bool capacity_reached() const { return capacity_reached_; }

  private:
    // A block of a segment; the blocks of one segment are a list in address order (prev, next), as
    // the allocator's own Block links them, so merging looks at two indices and no search.
    struct Block {
        uint64_t address = 0, size = 0;
        int32_t prev = -1, next = -1;  // the neighbours in its segment, -1 at the segment's ends
        uint32_t generation = 0;       // bumped when the slot is reused, so a stale handle is ignored
        bool free = false;
        bool live = false;             // false: the slot is on spare_
    };
    struct FreeKey {  // a free block, in the order best fit searches: size, then address
        uint64_t size = 0, address = 0;
        int32_t block = -1;
        bool operator<(const FreeKey& o) const { return size != o.size ? size < o.size : address < o.address; }
    };
    struct Segment {
        uint64_t address = 0, size = 0;
        int32_t first = -1;  // the block at its start (never merged into another: it has no previous block)
    };
    int32_t new_block(uint64_t address, uint64_t size);
    void drop_block(int32_t i);
    void insert_free(int32_t i);
    void erase_free(int32_t i);
    bool release_empty_segments();

    uint64_t capacity_;
    // Plain vectors, not trees: a replay holds at most some hundreds of blocks, and a sorted vector's
    // search and shift cost less than a tree's node allocations (generate_replay.h: ~10^5 requests).
    std::vector<Block> blocks_;      // by slot; a handle is its slot and generation
    std::vector<int32_t> spare_;     // slots of dropped blocks, reused first
    std::vector<FreeKey> free_;      // the free blocks, sorted
    std::vector<Segment> segments_;  // by address (each new segment lies above the last)
    uint64_t next_segment_ = 0;      // segments are laid out apart so blocks never merge across them
    uint64_t reserved_ = 0, peak_reserved_ = 0, allocated_ = 0, peak_allocated_ = 0;
    bool out_of_memory_ = false, capacity_reached_ = false;
    double failed_request_ = 0;
};

}  // namespace vl
