// The caching allocator model (caching_allocator.h).
#include "caching_allocator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vl {

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kMinBlock = 512;          // kMinBlockSize: every request rounds up to 512 B
constexpr uint64_t kSmallSize = kMiB;        // kSmallSize: the small pool's largest request
constexpr uint64_t kLargeBuffer = 20 * kMiB; // kLargeBuffer: the segment of a request under 10 MiB
constexpr uint64_t kMinLargeAlloc = 10 * kMiB;
constexpr uint64_t kRoundLarge = 2 * kMiB;   // kRoundLarge: larger segments round up to 2 MiB

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

}  // namespace

CachingAllocatorModel::CachingAllocatorModel(double capacity_bytes)
    : capacity_(capacity_bytes >= 1.8e19 ? std::numeric_limits<uint64_t>::max()
                : capacity_bytes > 0       ? static_cast<uint64_t>(capacity_bytes)
                                           : 0) {}

int32_t CachingAllocatorModel::new_block(uint64_t address, uint64_t size) {
    int32_t i;
    if (!spare_.empty()) {
        i = spare_.back();
        spare_.pop_back();
    } else {
        i = static_cast<int32_t>(blocks_.size());
        blocks_.emplace_back();
    }
    Block& b = blocks_[static_cast<size_t>(i)];
    b.address = address;
    b.size = size;
    b.prev = b.next = -1;
    ++b.generation;
    b.free = false;
    b.live = true;
    return i;
}

void CachingAllocatorModel::drop_block(int32_t i) {
    blocks_[static_cast<size_t>(i)].live = false;
    spare_.push_back(i);
}

// free_ is sorted largest first: the blocks that come and go most (the layers' temporaries, a few MiB)
// are then near its end, where inserting and erasing moves few entries.
static bool larger(const auto& a, const auto& b) { return b < a; }

void CachingAllocatorModel::insert_free(int32_t i) {
    const Block& b = blocks_[static_cast<size_t>(i)];
    const FreeKey k{b.size, b.address, i};
    free_.insert(std::lower_bound(free_.begin(), free_.end(), k, larger<FreeKey, FreeKey>), k);
}

void CachingAllocatorModel::erase_free(int32_t i) {
    const Block& b = blocks_[static_cast<size_t>(i)];
    free_.erase(std::lower_bound(free_.begin(), free_.end(), FreeKey{b.size, b.address, i}, larger<FreeKey, FreeKey>));
}

int64_t CachingAllocatorModel::allocate(double bytes) {
    // A small-pool request: at most 1 MiB, a multiple of 512 B, so before rounding as after it.
    if (!(bytes > static_cast<double>(kSmallSize)) || bytes > 1e18) return 0;
    const uint64_t n = round_up(std::max<uint64_t>(kMinBlock, static_cast<uint64_t>(std::ceil(bytes))), kMinBlock);
    if (n <= kSmallSize) return 0;
    int32_t i = -1;
    // Best fit: the smallest (size, address) at or above (n, 0), the last of the entries that are.
    const FreeKey want{n, 0, -1};
    if (auto it = std::partition_point(free_.begin(), free_.end(), [&](const FreeKey& k) { return !(k < want); }); it != free_.begin()) {
        i = std::prev(it)->block;
        free_.erase(std::prev(it));
    } else {
        const uint64_t size = n < kMinLargeAlloc ? kLargeBuffer : round_up(n, kRoundLarge);
        if (reserved_ + size > capacity_) {  // release_cached_blocks, then try again
            capacity_reached_ = true;
            if (!release_empty_segments() || reserved_ + size > capacity_) {
                out_of_memory_ = true;
                failed_request_ = static_cast<double>(n);
                return -1;
            }
        }
        const uint64_t address = next_segment_;
        next_segment_ += size + kRoundLarge;
        i = new_block(address, size);
        segments_.push_back(Segment{address, size, i});
        reserved_ += size;
        peak_reserved_ = std::max(peak_reserved_, reserved_);
    }
    blocks_[static_cast<size_t>(i)].free = false;
    if (const uint64_t whole = blocks_[static_cast<size_t>(i)].size; whole - n > kSmallSize) {
        // split: the rest stays cached as a free block after it in the segment
        const int32_t r = new_block(blocks_[static_cast<size_t>(i)].address + n, whole - n);
        Block& b = blocks_[static_cast<size_t>(i)];
        Block& rest = blocks_[static_cast<size_t>(r)];
        b.size = n;
        rest.free = true;
        rest.prev = i;
        rest.next = b.next;
        if (b.next >= 0) blocks_[static_cast<size_t>(b.next)].prev = r;
        b.next = r;
        insert_free(r);
    }
    const Block& b = blocks_[static_cast<size_t>(i)];
    allocated_ += b.size;
    peak_allocated_ = std::max(peak_allocated_, allocated_);
    return (static_cast<int64_t>(b.generation) << 32 | i) + 1;
}

void CachingAllocatorModel::release(int64_t handle) {
    if (handle <= 0) return;
    const int64_t h = handle - 1;
    const auto slot = static_cast<size_t>(h & 0xffffffff);
    if (slot >= blocks_.size()) return;
    int32_t i = static_cast<int32_t>(slot);
    Block* b = &blocks_[slot];
    if (!b->live || b->free || b->generation != static_cast<uint32_t>(h >> 32)) return;
    allocated_ -= b->size;
    b->free = true;
    // Merge with the next and the previous block of the same segment when they are free.
    if (const int32_t nx = b->next; nx >= 0 && blocks_[static_cast<size_t>(nx)].free) {
        Block& next = blocks_[static_cast<size_t>(nx)];
        erase_free(nx);
        b->size += next.size;
        b->next = next.next;
        if (next.next >= 0) blocks_[static_cast<size_t>(next.next)].prev = i;
        drop_block(nx);
    }
    if (const int32_t pv = b->prev; pv >= 0 && blocks_[static_cast<size_t>(pv)].free) {
        Block& prev = blocks_[static_cast<size_t>(pv)];
        erase_free(pv);
        prev.size += b->size;
        prev.next = b->next;
        if (b->next >= 0) blocks_[static_cast<size_t>(b->next)].prev = pv;
        drop_block(i);
        i = pv;
    }
    insert_free(i);
}

bool CachingAllocatorModel::release_empty_segments() {
    bool any = false;
    size_t kept = 0;
    for (const Segment& s : segments_) {
        const Block& b = blocks_[static_cast<size_t>(s.first)];
        if (b.free && b.size == s.size) {
            erase_free(s.first);
            drop_block(s.first);
            reserved_ -= s.size;
            any = true;
        } else {
            segments_[kept++] = s;
        }
    }
    segments_.resize(kept);
    return any;
}

}  // namespace vl
