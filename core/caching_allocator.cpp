// The caching allocator model (caching_allocator.h).
#include "caching_allocator.h"

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

void CachingAllocatorModel::insert_free(uint64_t address, uint64_t size) {
    Block& b = blocks_[address];
    b.size = size;
    b.free = true;
    free_.insert({size, address});
}

int64_t CachingAllocatorModel::allocate(double bytes) {
    if (!(bytes > 0) || bytes > 1e18) return 0;
    const uint64_t n = round_up(std::max<uint64_t>(kMinBlock, static_cast<uint64_t>(std::ceil(bytes))), kMinBlock);
    if (n <= kSmallSize) return 0;
    auto it = free_.lower_bound({n, 0});
    uint64_t address = 0;
    if (it != free_.end()) {
        address = it->second;
        free_.erase(it);
    } else {
        const uint64_t size = n < kMinLargeAlloc ? kLargeBuffer : round_up(n, kRoundLarge);
        if (reserved_ + size > capacity_ && (!release_empty_segments() || reserved_ + size > capacity_)) {
            out_of_memory_ = true;
            failed_request_ = static_cast<double>(n);
            return -1;
        }
        address = next_segment_;
        next_segment_ += size + kRoundLarge;
        segments_[address] = size;
        blocks_[address] = Block{size, address, true};
        reserved_ += size;
        peak_reserved_ = std::max(peak_reserved_, reserved_);
    }
    Block& b = blocks_[address];
    b.free = false;
    if (b.size - n > kSmallSize) {  // split: the rest stays cached as a free block
        const uint64_t rest = b.size - n, segment = b.segment;
        b.size = n;
        blocks_[address + n] = Block{rest, segment, true};
        free_.insert({rest, address + n});
    }
    allocated_ += b.size;
    peak_allocated_ = std::max(peak_allocated_, allocated_);
    return static_cast<int64_t>(address) + 1;
}

void CachingAllocatorModel::release(int64_t handle) {
    if (handle <= 0) return;
    auto it = blocks_.find(static_cast<uint64_t>(handle - 1));
    if (it == blocks_.end() || it->second.free) return;
    allocated_ -= it->second.size;
    it->second.free = true;
    // Merge with the next and the previous block of the same segment when they are free.
    if (auto next = std::next(it); next != blocks_.end() && next->second.free && next->second.segment == it->second.segment) {
        free_.erase({next->second.size, next->first});
        it->second.size += next->second.size;
        blocks_.erase(next);
    }
    if (it != blocks_.begin()) {
        auto prev = std::prev(it);
        if (prev->second.free && prev->second.segment == it->second.segment) {
            free_.erase({prev->second.size, prev->first});
            prev->second.size += it->second.size;
            blocks_.erase(it);
            it = prev;
        }
    }
    free_.insert({it->second.size, it->first});
}

bool CachingAllocatorModel::release_empty_segments() {
    bool any = false;
    for (auto s = segments_.begin(); s != segments_.end();) {
        auto b = blocks_.find(s->first);
        if (b != blocks_.end() && b->second.free && b->second.size == s->second) {
            free_.erase({b->second.size, b->first});
            blocks_.erase(b);
            reserved_ -= s->second;
            s = segments_.erase(s);
            any = true;
        } else {
            ++s;
        }
    }
    return any;
}

}  // namespace vl
