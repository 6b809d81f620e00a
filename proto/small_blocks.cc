#include "proto/small_blocks.h"

#include <sanitizer/asan_interface.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace uringload::proto {
namespace {

// Under ASan a kept block is as untouchable as a freed one.
#if defined(__SANITIZE_ADDRESS__)
void Hide(void* block, size_t bytes) { ASAN_POISON_MEMORY_REGION(block, bytes); }
void Show(void* block, size_t bytes) { ASAN_UNPOISON_MEMORY_REGION(block, bytes); }
#else
void Hide(void*, size_t) {}
void Show(void*, size_t) {}
#endif

}  // namespace

SmallBlocks::SmallBlocks(size_t range_bytes)
    : range_bytes_(range_bytes / kSlabBytes * kSlabBytes) {}

SmallBlocks::~SmallBlocks() {
  if (range_ == nullptr) return;
  // ASan's shadow outlives the mapping: kept blocks would stay poisoned for whatever is mapped
  // at their addresses next (the next SmallBlocks' slabs, in the same process).
  Show(range_, slab_class_.size() * kSlabBytes);
  munmap(range_, range_bytes_);
}

void* SmallBlocks::Take(size_t size) {
  if (size <= kMaxKeptBytes) {
    size_t k = ClassOf(size);
    if (Kept* block = lists_[k]; block != nullptr) {
      Show(block, ClassBytes(k));
      lists_[k] = block->next;
      --kept_;
      return block;
    }
    if (void* block = Carve(k); block != nullptr) {
      ++made_;
      return block;
    }
  }
  ++made_;
  return malloc(size);
}

void* SmallBlocks::Carve(size_t k) {
  size_t bytes = ClassBytes(k);
  if (static_cast<size_t>(end_[k] - next_[k]) < bytes) {
    if (range_ == nullptr && !reserve_failed_ && range_bytes_ > 0) {
      // Address space only: a slab's pages are committed when it is carved (mprotect below), so
      // that a system that accounts memory strictly counts the slabs, not the range.
      void* range = mmap(nullptr, range_bytes_, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      reserve_failed_ = range == MAP_FAILED;
      if (!reserve_failed_) {
        range_ = static_cast<char*>(range);
        range_end_ = range_ + range_bytes_;
      }
    }
    size_t used = slab_class_.size() * kSlabBytes;
    if (range_ == nullptr || used == range_bytes_) return nullptr;
    char* slab = range_ + used;
    if (mprotect(slab, kSlabBytes, PROT_READ | PROT_WRITE) != 0) return nullptr;
    slab_class_.push_back(static_cast<uint8_t>(k));
    next_[k] = slab;
    end_[k] = slab + kSlabBytes / bytes * bytes;
  }
  void* block = next_[k];
  next_[k] += bytes;
  return block;
}

void SmallBlocks::GiveBack(void* block) {
  if (block == nullptr) return;
  if (!InRange(block)) {
    free(block);
    return;
  }
  size_t k = ClassOfCarved(block);
  lists_[k] = new (block) Kept{lists_[k]};
  ++kept_;
  Hide(block, ClassBytes(k));
}

void* SmallBlocks::Resize(void* block, size_t size) {
  if (block == nullptr) return Take(size);
  if (!InRange(block)) return realloc(block, size);
  size_t usable = ClassBytes(ClassOfCarved(block));
  if (size <= usable) return block;
  void* grown = Take(size);
  if (grown == nullptr) return nullptr;
  std::memcpy(grown, block, usable);
  GiveBack(block);
  return grown;
}

}  // namespace uringload::proto
