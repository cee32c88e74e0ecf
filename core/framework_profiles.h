// Framework profiles (issue 14): "Transformers Trainer", "PEFT + bitsandbytes (QLoRA)", "DeepSpeed ZeRO-n", "vLLM",
// "llama.cpp (CUDA)", ... each the scenario settings that framework makes by default, with the versions it describes
// and a source per setting. ONE table (framework_profiles.cpp); applying a profile, the "sets: ..." text and the check
// that a scenario still has a profile's settings all read it. Pure; no I/O.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "scenario.h"

namespace vl {

// One setting a profile makes: a scenario field by its path in the scenario format, the value as JSON, and the source
// that says the framework does so (a docs/sources.md key, then what it reads there).
struct ProfileSetting {
    const char* field;   // e.g. "train.precision"
    const char* value;   // JSON, e.g. "\"bf16-autocast\"", "64", "true"
    const char* source;  // e.g. "[transformers-training-args] gradient_checkpointing=False"
};

struct FrameworkProfile {
    const char* id;        // e.g. "transformers-trainer-v5"
    const char* label;     // e.g. "Transformers Trainer, bf16=True"
    const char* versions;  // the framework versions the settings describe, e.g. "transformers >= 5.0"
    unsigned modes;        // mode_bit() of each Mode it applies to
    std::span<const ProfileSetting> settings;
};

inline constexpr unsigned mode_bit(Mode m) { return 1u << static_cast<unsigned>(m); }

std::span<const FrameworkProfile> framework_profiles();
const FrameworkProfile* find_profile(std::string_view id);

// The profile a front end starts a mode with ("" for Mode::Local, which keeps its own engines). A scenario without a
// profile keeps Scenario's defaults: the profile is picked by the UI and named by the CLI, never applied silently.
const char* default_profile(Mode m);

// "a, b or c": every profile id (the errors list them).
std::string profile_ids_text();

// The error of a profile id in a mode, naming "profile": an unknown id (listing the valid ones) or a profile that does
// not apply to the mode (naming both). None for "" (no profile). apply_profile() and validate() give it.
std::optional<FieldError> profile_error(std::string_view id, Mode mode);

// Sets the fields the profile `id` sets and s.profile = id. Errors name "profile": an unknown id (listing the valid
// ones) or a profile that does not apply to s.mode (naming both). "" clears s.profile and sets nothing.
std::vector<FieldError> apply_profile(Scenario& s, std::string_view id);

// "train.precision = bf16-autocast, train.recompute = none": what the profile sets, from its table.
std::string profile_sets_text(const FrameworkProfile& p);

// Whether every field the scenario's profile sets still has the profile's value (false without a profile).
bool profile_intact(const Scenario& s);

// "profile: <label> (<versions>; sets: ...)", "custom (from <label>)" when a field the profile set was changed since,
// or "" without a profile: the line the exports and the page show.
std::string profile_text(const Scenario& s);

}  // namespace vl
