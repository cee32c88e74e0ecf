// vramlens command-line tool (cli.h). Scenario flags are edits of the scenario JSON document
// (--micro-batch 4 sets "train.micro_batch": 4), so flags, files and share links go through the
// one reader in core/scenario_json and report errors by the same JSON path.
#include "cli.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "enum_names.h"
#include "estimate.h"
#include "export.h"
#include "formula.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "param_count.h"
#include "scenario_json.h"
#include "share_link.h"
#include "units.h"
#include "verify_script.h"

#if __has_include("solvers.h")
#include "solvers.h"
#define VRAMLENS_HAVE_SOLVERS 1
#endif

namespace vl::cli {

namespace {

using Json = nlohmann::ordered_json;

// ---- scenario flags -----------------------------------------------------------------------------
enum class FlagKind {
    Value,        // --flag VALUE sets path to VALUE (a JSON number/bool when it reads as one, else a string)
    Switch,       // --flag sets path to true (--flag=false to clear)
    Params,       // --params N: model = {"params": N}
    ModelConfig,  // --model-config FILE: model = {"hf_config": <FILE>}
    LoraTargets,  // --lora-targets q_proj,v_proj (or all-linear)
    GpuMemGiB,    // --gpu-memory-gib X: gpu.memory_bytes = X GiB
    Set,          // --set PATH=VALUE, any field
};

struct FlagSpec {
    const char* flag;
    const char* path;
    FlagKind kind;
    const char* help;
};

constexpr FlagSpec kScenarioFlags[] = {
    {"--model", "model", FlagKind::Value, "preset id (see `vramlens models`)"},
    {"--params", "model", FlagKind::Params, "a model known only by its parameter count, e.g. 7e9"},
    {"--model-config", "model", FlagKind::ModelConfig, "a Hugging Face config.json file"},
    {"--mode", "mode", FlagKind::Value, "train | finetune | infer"},
    {"--precision", "train.precision", FlagKind::Value, "fp32 | fp16-mixed | bf16-mixed | bf16-pure | fp8"},
    {"--optimizer", "train.optimizer", FlagKind::Value, "sgd | sgd-momentum | adamw | adamw-8bit | adafactor | lion | custom"},
    {"--micro-batch", "train.micro_batch", FlagKind::Value, "sequences per GPU per step"},
    {"--seq", "train.seq_len", FlagKind::Value, "training sequence length, tokens"},
    {"--grad-accum", "train.grad_accum_steps", FlagKind::Value, "gradient accumulation steps"},
    {"--recompute", "train.recompute", FlagKind::Value, "none | selective | full | every-k"},
    {"--method", "finetune.method", FlagKind::Value, "full | lora | qlora"},
    {"--lora-rank", "finetune.lora_rank", FlagKind::Value, "LoRA rank r"},
    {"--lora-targets", "finetune.lora_targets", FlagKind::LoraTargets, "q_proj,k_proj,... or all-linear"},
    {"--weights", "infer.weights", FlagKind::Value, "fp32 | fp16 | bf16 | fp8 | int8 | gptq-4bit | awq-4bit | nf4 | fp4 | q8_0 | ... | q2_k"},
    {"--kv-dtype", "infer.kv_dtype", FlagKind::Value, "fp16 | bf16 | fp8 | int8 | int4"},
    {"--batch", "infer.batch", FlagKind::Value, "concurrent sequences"},
    {"--context", "infer.context", FlagKind::Value, "tokens per sequence (prompt + generated)"},
    {"--engine", "infer.engine", FlagKind::Value, "transformers | vllm | llama.cpp"},
    {"--dp", "parallel.dp", FlagKind::Value, "data-parallel ranks"},
    {"--tp", "parallel.tp", FlagKind::Value, "tensor-parallel ranks"},
    {"--pp", "parallel.pp", FlagKind::Value, "pipeline stages"},
    {"--cp", "parallel.cp", FlagKind::Value, "context-parallel ranks"},
    {"--ep", "parallel.ep", FlagKind::Value, "expert-parallel ranks"},
    {"--sp", "parallel.sp", FlagKind::Switch, "sequence parallelism (with tp > 1)"},
    {"--zero", "parallel.zero", FlagKind::Value, "ZeRO stage 0..3 (FSDP full shard = 3)"},
    {"--offload-optimizer", "parallel.offload_optimizer", FlagKind::Switch, "optimizer states on the host (ZeRO-Offload)"},
    {"--offload-params", "parallel.offload_params", FlagKind::Switch, "parameters on the host (ZeRO-Infinity, zero 3)"},
    {"--gpu", "gpu", FlagKind::Value, "GPU preset id (see `vramlens gpus`)"},
    {"--gpu-memory-gib", "gpu.memory_bytes", FlagKind::GpuMemGiB, "usable memory of a custom GPU, GiB"},
    {"--gpus", "gpu_count", FlagKind::Value, "total GPUs (default dp * tp * pp * cp)"},
    {"--set", "", FlagKind::Set, "PATH=VALUE: any scenario field, e.g. overheads.fragmentation=0.1"},
};

const FlagSpec* find_flag(const std::string& name) {
    for (const FlagSpec& f : kScenarioFlags)
        if (name == f.flag) return &f;
    return nullptr;
}

// ---- command line -----------------------------------------------------------------------------
struct Edit {
    const FlagSpec* spec;
    std::string value;
};

struct Options {
    std::string command;
    std::vector<std::string> positional;
    std::vector<Edit> edits;
    ExportFormat format = ExportFormat::Table;
    SizeUnit unit = SizeUnit::GiB;
    bool formulas = false;
    bool fail_if_no_fit = false;
    bool help = false;
};

struct UsageError {
    std::string message;
};

// Parses everything after the command. --flag VALUE and --flag=VALUE both work.
std::optional<UsageError> parse_options(const std::vector<std::string>& args, size_t first, Options& o) {
    for (size_t i = first; i < args.size(); ++i) {
        std::string a = args[i];
        if (a.size() < 2 || a.compare(0, 2, "--") != 0 || a == "--") {
            o.positional.push_back(a);
            continue;
        }
        std::optional<std::string> inline_value;
        if (size_t eq = a.find('='); eq != std::string::npos) {
            inline_value = a.substr(eq + 1);
            a = a.substr(0, eq);
        }
        auto value = [&]() -> std::optional<std::string> {
            if (inline_value) return inline_value;
            if (i + 1 < args.size()) return args[++i];
            return std::nullopt;
        };
        if (a == "--help") { o.help = true; continue; }
        if (a == "--formulas") { o.formulas = true; continue; }
        if (a == "--fail-if-no-fit") { o.fail_if_no_fit = true; continue; }
        if (a == "--format" || a == "--unit") {
            std::optional<std::string> v = value();
            if (!v) return UsageError{a + " needs a value"};
            if (a == "--format") {
                auto f = parse_enum<ExportFormat>(*v);
                if (!f) return UsageError{"--format must be one of " + enum_choices<ExportFormat>() + "; got \"" + *v + "\""};
                o.format = *f;
            } else if (*v == "gib" || *v == "GiB") {
                o.unit = SizeUnit::GiB;
            } else if (*v == "gb" || *v == "GB") {
                o.unit = SizeUnit::GB;
            } else {
                return UsageError{"--unit must be \"gib\" (2^30 bytes) or \"gb\" (10^9 bytes); got \"" + *v + "\""};
            }
            continue;
        }
        const FlagSpec* spec = find_flag(a);
        if (!spec) return UsageError{"unknown option " + a + " (see `vramlens --help`)"};
        if (spec->kind == FlagKind::Switch) {
            o.edits.push_back({spec, inline_value.value_or("true")});
            continue;
        }
        std::optional<std::string> v = value();
        if (!v) return UsageError{a + " needs a value"};
        o.edits.push_back({spec, *v});
    }
    return std::nullopt;
}

bool read_file(const std::string& path, std::string& text, std::string& err) {
    if (path == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        err += "vramlens: cannot read " + path + ": " + std::strerror(errno) + "\n";
        return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    return true;
}

// A flag's text as a JSON value: numbers and true/false as such, anything else as a string.
Json flag_value(const std::string& text) {
    Json j = Json::parse(text, nullptr, false);
    if (!j.is_discarded() && (j.is_number() || j.is_boolean())) return j;
    return text;
}

void print_errors(const std::vector<FieldError>& errs, const std::map<std::string, std::string>& flag_of, std::string& err) {
    for (const FieldError& e : errs) {
        std::string from;
        for (const auto& [path, flag] : flag_of)
            if (e.field == path || e.field.compare(0, path.size() + 1, path + ".") == 0) from = " (from " + flag + ")";
        err += "  " + e.field + from + ": " + e.message + "\n";
    }
}

// Sets doc[path] (dotted), creating objects on the way. A preset id met on the way ("model":
// "llama-3.1-8b" then --set model.layers=16) is first replaced by that preset's fields.
std::optional<std::string> set_path(Json& doc, const std::string& path, Json value) {
    Json* at = &doc;
    std::string walked;
    size_t start = 0;
    while (true) {
        size_t dot = path.find('.', start);
        std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (key.empty()) return "\"" + path + "\" is not a field path";
        walked += (walked.empty() ? "" : ".") + key;
        if (dot == std::string::npos) {
            (*at)[key] = std::move(value);
            return std::nullopt;
        }
        Json& next = (*at)[key];
        if (next.is_string() && walked == "model") {
            if (const ModelPreset* m = find_model(next.get<std::string>())) next = Json::parse(model_to_json(m->spec, JsonStyle::Compact), nullptr, false);
        } else if (next.is_string() && walked == "gpu") {
            if (const GpuPreset* g = find_gpu(next.get<std::string>())) next = Json{{"name", g->name}, {"memory_bytes", g->memory_bytes}};
        }
        if (next.is_null()) next = Json::object();
        if (!next.is_object()) return "\"" + walked + "\" is not an object here, so \"" + path + "\" cannot be set";
        at = &next;
        start = dot + 1;
    }
}

// The scenario from an optional file plus the flags. Prints errors itself; nullopt on failure.
std::optional<Scenario> load_scenario(const Options& o, const std::string* file, std::string& err, int& status) {
    std::string text = "{\"version\": " + std::to_string(kScenarioJsonVersion) + "}";
    std::string source = "flags";
    if (file) {
        if (!read_file(*file, text, err)) { status = kBadInput; return std::nullopt; }
        source = *file;
    }
    Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {  // the reader says exactly what is wrong
        Result<Scenario> r = scenario_from_json(text);
        err += "vramlens: " + source + " is not a valid scenario:\n";
        print_errors(r.errors, {}, err);
        status = kBadInput;
        return std::nullopt;
    }
    std::map<std::string, std::string> flag_of;
    for (const Edit& e : o.edits) {
        std::string path = e.spec->path;
        Json value;
        switch (e.spec->kind) {
            case FlagKind::Value:
            case FlagKind::Switch: value = flag_value(e.value); break;
            case FlagKind::Params: value = Json{{"params", flag_value(e.value)}}; break;
            case FlagKind::ModelConfig: {
                std::string cfg;
                if (!read_file(e.value, cfg, err)) { status = kBadInput; return std::nullopt; }
                Json c = Json::parse(cfg, nullptr, false);
                if (c.is_discarded()) {
                    err += "vramlens: " + e.value + " is not valid JSON\n";
                    status = kBadInput;
                    return std::nullopt;
                }
                value = Json{{"hf_config", std::move(c)}};
                break;
            }
            case FlagKind::LoraTargets: {
                if (e.value == "all-linear") { value = e.value; break; }
                value = Json::array();
                size_t start = 0;
                while (start <= e.value.size()) {
                    size_t comma = e.value.find(',', start);
                    value.push_back(e.value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
                    if (comma == std::string::npos) break;
                    start = comma + 1;
                }
                break;
            }
            case FlagKind::GpuMemGiB: {
                Json gib = flag_value(e.value);
                if (!gib.is_number()) {
                    err += "vramlens: --gpu-memory-gib must be a number of GiB; got \"" + e.value + "\"\n";
                    status = kUsage;
                    return std::nullopt;
                }
                // A custom GPU: keep the name if one was given as an object, else call it so.
                Json& gpu = doc["gpu"];
                if (!gpu.is_object()) gpu = Json{{"name", "Custom GPU"}};
                value = gib.get<double>() * kGiB;
                break;
            }
            case FlagKind::Set: {
                size_t eq = e.value.find('=');
                if (eq == std::string::npos || eq == 0) {
                    err += "vramlens: --set needs PATH=VALUE, e.g. --set overheads.fragmentation=0.1; got \"" + e.value + "\"\n";
                    status = kUsage;
                    return std::nullopt;
                }
                path = e.value.substr(0, eq);
                value = flag_value(e.value.substr(eq + 1));
                break;
            }
        }
        if (auto problem = set_path(doc, path, std::move(value))) {
            err += "vramlens: " + std::string(e.spec->flag) + ": " + *problem + "\n";
            status = kUsage;
            return std::nullopt;
        }
        flag_of[path] = e.spec->kind == FlagKind::Set ? "--set " + path : e.spec->flag;
    }
    Result<Scenario> r = scenario_from_json(doc.dump(-1, ' ', false, Json::error_handler_t::replace));
    for (const std::string& w : r.warnings) err += "warning: " + w + "\n";
    if (!r.ok()) {
        err += "vramlens: invalid scenario (" + source + "):\n";
        print_errors(r.errors, flag_of, err);
        status = kBadInput;
        return std::nullopt;
    }
    return *r.value;
}

// ---- help -------------------------------------------------------------------------------------
std::string usage() {
    std::string h =
        "vramlens " VRAMLENS_VERSION " - how much GPU memory will this LLM need?\n"
        "\n"
        "usage:\n"
        "  vramlens estimate [SCENARIO.json] [scenario flags] [--format F] [--unit gib|gb] [--formulas] [--fail-if-no-fit]\n"
        "  vramlens solve WHAT [SCENARIO.json] [scenario flags] [--format F]\n"
        "        WHAT: micro-batch | seq | batch | context | gpus | weights\n"
        "  vramlens scenario [SCENARIO.json] [scenario flags]     print the scenario as JSON (a file to edit)\n"
        "  vramlens link [SCENARIO.json] [scenario flags]         print its share link\n"
        "  vramlens link --decode LINK                            print the scenario a share link holds\n"
        "  vramlens models [--format F]                           model presets\n"
        "  vramlens gpus [--format F]                             GPU presets\n"
        "  vramlens import CONFIG.json [--format F]               a Hugging Face config.json: parsed model and parameter counts\n"
        "  vramlens verify-script [SCENARIO.json] [flags]         a Python script that measures the scenario on a CUDA GPU\n"
        "  vramlens --help | --version\n"
        "\n"
        "SCENARIO.json is the scenario JSON format (docs/scenario-format.md); `-` reads stdin.\n"
        "Flags are applied on top of the file, in order. F: table (default) | json | markdown | csv.\n"
        "\n"
        "scenario flags:\n";
    for (const FlagSpec& f : kScenarioFlags) {
        std::string left = std::string("  ") + f.flag + (f.kind == FlagKind::Switch ? "" : " X");
        h += left + std::string(left.size() < 24 ? 24 - left.size() : 1, ' ') + f.help + "\n";
    }
    h +=
        "\n"
        "example:\n"
        "  vramlens estimate --model llama-3.1-8b --mode train --precision bf16-mixed --optimizer adamw \\\n"
        "      --micro-batch 4 --seq 4096 --zero 2 --dp 8 --gpu h100-80gb\n"
        "\n"
        "exit status: 0 ok, 1 invalid input (the message names the field), 2 usage error,\n"
        "             3 does not fit (with --fail-if-no-fit)\n";
    return h;
}

std::string grouped(int64_t n) {  // 8030261248 -> "8,030,261,248"
    std::string digits = std::to_string(n < 0 ? -n : n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

// ---- commands ---------------------------------------------------------------------------------
const std::string* scenario_file(const Options& o, size_t index, std::string& err, int& status) {
    if (o.positional.size() > index + 1) {
        err += "vramlens: unexpected argument \"" + o.positional[index + 1] + "\"\n";
        status = kUsage;
        return nullptr;
    }
    return o.positional.size() == index + 1 ? &o.positional[index] : nullptr;
}

int cmd_estimate(const Options& o, std::string& out, std::string& err) {
    int status = kOk;
    const std::string* file = scenario_file(o, 0, err, status);
    if (status != kOk) return status;
    std::optional<Scenario> s = load_scenario(o, file, err, status);
    if (!s) return status;
    Estimate e = estimate(*s, Detail::Full);
    if (!e.ok()) {
        err += "vramlens: invalid scenario:\n";
        print_errors(e.errors, {}, err);
        return kBadInput;
    }
    ExportOptions eo;
    eo.unit = o.unit;
    eo.formulas = o.formulas;
    out += export_estimate(*s, e, o.format, eo);
    return (o.fail_if_no_fit && !e.fits()) ? kNoFit : kOk;
}

int cmd_verify_script(const Options& o, std::string& out, std::string& err) {
    int status = kOk;
    const std::string* file = scenario_file(o, 0, err, status);
    if (status != kOk) return status;
    std::optional<Scenario> s = load_scenario(o, file, err, status);
    if (!s) return status;
    Result<std::string> script = verify_script(*s, estimate(*s, Detail::NumbersOnly));
    if (!script.ok()) {
        err += "vramlens: no verify script for this scenario:\n";
        print_errors(script.errors, {}, err);
        return kBadInput;
    }
    out += *script;
    return kOk;
}

int cmd_scenario(const Options& o, std::string& out, std::string& err) {
    int status = kOk;
    const std::string* file = scenario_file(o, 0, err, status);
    if (status != kOk) return status;
    std::optional<Scenario> s = load_scenario(o, file, err, status);
    if (!s) return status;
    out += scenario_to_json(*s, JsonStyle::Pretty) + "\n";
    return kOk;
}

int cmd_link(const std::vector<std::string>& args, const Options& o, std::string& out, std::string& err) {
    if (args.size() >= 2 && (args[1] == "--decode" || args[1].rfind("--decode=", 0) == 0)) {
        std::string link = args[1] == "--decode" ? (args.size() >= 3 ? args[2] : "") : args[1].substr(9);
        if (link.empty() || args.size() > (args[1] == "--decode" ? 3u : 2u)) {
            err += "vramlens: link --decode needs exactly one LINK\n";
            return kUsage;
        }
        if (size_t hash = link.find('#'); hash != std::string::npos) link = link.substr(hash);  // a whole URL
        Result<Scenario> r = decode_share_link(link);
        if (!r.ok()) {
            err += "vramlens: cannot read this link:\n";
            print_errors(r.errors, {}, err);
            return kBadInput;
        }
        out += scenario_to_json(*r, JsonStyle::Pretty) + "\n";
        return kOk;
    }
    int status = kOk;
    const std::string* file = scenario_file(o, 0, err, status);
    if (status != kOk) return status;
    std::optional<Scenario> s = load_scenario(o, file, err, status);
    if (!s) return status;
    out += encode_share_link(*s) + "\n";
    return kOk;
}

int cmd_models(const Options& o, std::string& out) {
    std::vector<std::vector<std::string>> rows;
    for (const ModelPreset& p : model_presets()) {
        ParamCounts c = count_params(p.spec);
        rows.push_back({p.id, p.name, p.family, grouped(c.total), p.spec.moe.num_experts > 0 ? grouped(c.active_per_token) : "", p.hf_id});
    }
    out += format_rows({"id", "name", "family", "parameters", "active", "hugging face"}, rows, o.format);
    return kOk;
}

int cmd_gpus(const Options& o, std::string& out) {
    std::vector<std::vector<std::string>> rows;
    for (const GpuPreset& g : gpu_presets())
        rows.push_back({g.id, g.name, format("%.2f", to_gib(g.memory_bytes)), format("%.2f", to_gb(g.memory_bytes)), format("%.0f", g.memory_bytes), g.source});
    out += format_rows({"id", "name", "GiB", "GB", "bytes", "source"}, rows, o.format);
    return kOk;
}

int cmd_import(const Options& o, std::string& out, std::string& err) {
    if (o.positional.size() != 1 || !o.edits.empty()) {
        err += "vramlens: import needs exactly one CONFIG.json (and no scenario flags)\n";
        return kUsage;
    }
    std::string text;
    if (!read_file(o.positional[0], text, err)) return kBadInput;
    Result<ModelSpec> r = import_hf_config(text);
    for (const std::string& w : r.warnings) err += "warning: " + w + "\n";
    if (!r.ok()) {
        err += "vramlens: " + o.positional[0] + " cannot be imported:\n";
        print_errors(r.errors, {}, err);
        return kBadInput;
    }
    const ModelSpec& m = *r;
    const ParamCounts p = count_params(m);
    const std::vector<std::vector<std::string>> counts = {
        {"total", grouped(p.total)},
        {"embedding", grouped(p.embedding)},
        {"lm_head", grouped(p.lm_head)},
        {"non_embedding", grouped(p.non_embedding)},
        {"active_per_token", grouped(p.active_per_token)},
        {"largest_layer", grouped(p.largest_layer)},
    };
    if (o.format == ExportFormat::Json) {
        Json j = Json::object();
        j["model"] = Json::parse(model_to_json(m, JsonStyle::Pretty), nullptr, false);
        j["params"] = {{"total", p.total},
                       {"embedding", p.embedding},
                       {"lm_head", p.lm_head},
                       {"non_embedding", p.non_embedding},
                       {"active_per_token", p.active_per_token},
                       {"largest_layer", p.largest_layer}};
        j["warnings"] = r.warnings;
        out += j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
        return kOk;
    }
    if (o.format == ExportFormat::Table) {
        out += m.name + " (" + m.model_type + ")\n\nparameters:\n";
        std::string table = format_rows({"count", "parameters"}, counts, ExportFormat::Table);
        out += table.substr(table.find('\n') + 1);  // rows only
        out += "\nas the \"model\" of a scenario file:\n" + model_to_json(m, JsonStyle::Pretty) + "\n";
        return kOk;
    }
    out += format_rows({"count", "parameters"}, counts, o.format);
    return kOk;
}

#ifdef VRAMLENS_HAVE_SOLVERS
struct KnobName {
    const char* name;
    Knob knob;
    const char* question;
};
constexpr KnobName kKnobs[] = {
    {"micro-batch", Knob::MicroBatch, "largest micro-batch that fits"},
    {"seq", Knob::SeqLen, "longest training sequence that fits"},
    {"batch", Knob::Batch, "most concurrent sequences that fit"},
    {"context", Knob::Context, "longest context that fits"},
    {"gpus", Knob::GpuCount, "fewest GPUs that fit"},
    {"weights", Knob::WeightFormat, "least compressed weight format that fits"},
};

int cmd_solve(const Options& o, std::string& out, std::string& err) {
    if (o.positional.empty()) {
        err += "vramlens: solve needs WHAT: micro-batch | seq | batch | context | gpus | weights\n";
        return kUsage;
    }
    const KnobName* k = nullptr;
    for (const KnobName& n : kKnobs)
        if (o.positional[0] == n.name) k = &n;
    if (!k) {
        err += "vramlens: cannot solve for \"" + o.positional[0] + "\"; WHAT is micro-batch | seq | batch | context | gpus | weights\n";
        return kUsage;
    }
    int status = kOk;
    const std::string* file = scenario_file(o, 1, err, status);
    if (status != kOk) return status;
    std::optional<Scenario> s = load_scenario(o, file, err, status);
    if (!s) return status;
    SolveResult r = solve(*s, k->knob);
    if (!r.errors.empty()) {
        err += "vramlens: invalid scenario:\n";
        print_errors(r.errors, {}, err);
        return kBadInput;
    }
    std::string value = !r.found ? "" : k->knob == Knob::WeightFormat ? enum_name(static_cast<WeightFormat>(r.value)) : std::to_string(r.value);
    if (o.format == ExportFormat::Json) {
        Json j = Json::object();
        j["solve"] = k->name;
        j["field"] = knob_name(k->knob);
        j["found"] = r.found;
        if (r.found) j["value"] = k->knob == Knob::WeightFormat ? Json(value) : Json(r.value);
        j["at_search_bound"] = r.at_search_bound;
        j["limiting"] = r.limiting_id;
        j["why"] = r.why;
        j["total_bytes"] = r.estimate.total_bytes;
        j["capacity_bytes"] = r.estimate.gpu_capacity_bytes;
        j["scenario"] = Json::parse(scenario_to_json(r.scenario, JsonStyle::Pretty), nullptr, false);
        out += j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
        return kOk;
    }
    if (!r.found) {
        out += std::string(k->question) + ": none. " + r.why + "\n";
        return kOk;
    }
    out += std::string(k->question) + ": " + value + (r.at_search_bound ? " (or more: the search stopped at its bound)" : "") + "\n";
    if (k->knob == Knob::GpuCount)
        out += format("layout: dp %lld, tp %lld, pp %lld, cp %lld, zero %d\n", static_cast<long long>(r.scenario.parallel.dp),
                      static_cast<long long>(r.scenario.parallel.tp), static_cast<long long>(r.scenario.parallel.pp),
                      static_cast<long long>(r.scenario.parallel.cp), r.scenario.parallel.zero);
    out += format("peak %.2f %s of %.2f %s", to_unit(r.estimate.total_bytes, o.unit), unit_name(o.unit),
                  to_unit(r.estimate.gpu_capacity_bytes, o.unit), unit_name(o.unit));
    out += r.limiting_id.empty() ? "\n" : "; limited by " + r.limiting_id + "\n";
    if (!r.why.empty()) out += r.why + "\n";
    return kOk;
}
#else
int cmd_solve(const Options&, std::string&, std::string& err) {
    err += "vramlens: solve is not available in this build (core/solvers.h missing)\n";
    return kUsage;
}
#endif

}  // namespace

int run(const std::vector<std::string>& args, std::string& out, std::string& err) {
    if (args.empty()) {
        err += usage();
        return kUsage;
    }
    const std::string& cmd = args[0];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        out += usage();
        return kOk;
    }
    if (cmd == "--version" || cmd == "version") {
        out += "vramlens " VRAMLENS_VERSION " (scenario format " + std::to_string(kScenarioJsonVersion) + ", share links v" +
               std::to_string(kShareLinkVersion) + ")\n";
        return kOk;
    }
    Options o;
    o.command = cmd;
    const bool is_decode = cmd == "link" && args.size() >= 2 && args[1].rfind("--decode", 0) == 0;
    if (!is_decode) {
        if (auto problem = parse_options(args, 1, o)) {
            err += "vramlens: " + problem->message + "\n";
            return kUsage;
        }
    }
    if (o.help) {
        out += usage();
        return kOk;
    }
    if (cmd == "estimate") return cmd_estimate(o, out, err);
    if (cmd == "solve") return cmd_solve(o, out, err);
    if (cmd == "scenario") return cmd_scenario(o, out, err);
    if (cmd == "verify-script") return cmd_verify_script(o, out, err);
    if (cmd == "link") return cmd_link(args, o, out, err);
    if (cmd == "import") return cmd_import(o, out, err);
    if (cmd == "models" || cmd == "gpus") {
        if (!o.positional.empty() || !o.edits.empty()) {
            err += "vramlens: " + cmd + " takes no arguments but --format\n";
            return kUsage;
        }
        return cmd == "models" ? cmd_models(o, out) : cmd_gpus(o, out);
    }
    err += "vramlens: unknown command \"" + cmd + "\" (see `vramlens --help`)\n";
    return kUsage;
}

}  // namespace vl::cli
