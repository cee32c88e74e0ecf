// A DeepSpeed config (ds_config.json) read as scenario edits: its "zero_optimization" stage, offload
// devices and buffer keys, the precision and batch keys beside them. `vramlens --deepspeed-config FILE`
// applies the edits in the order of the flags, so a later flag still wins.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"

namespace vl {

// One scenario field to set: its dotted path ("deepspeed.reduce_bucket_size") and its value as JSON text.
struct ScenarioEdit {
    std::string path;
    std::string json;
    bool operator==(const ScenarioEdit&) const = default;
};

// Errors name the ds_config path ("zero_optimization.stage: ..."); warnings name the keys that are not
// read: "auto" values the Trainer fills from its own arguments, and keys with no modelled memory effect.
Result<std::vector<ScenarioEdit>> deepspeed_config_edits(std::string_view text);

}  // namespace vl
