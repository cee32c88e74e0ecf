// libFuzzer target: the command line (cli/cli.h), vl::cli::run() called in-process as main() calls
// it. Seeds: fuzz/seeds/cli/ (the README's commands and the file-reading paths).
//
// An input is a command line, one argument per line ('\n' or NUL ends an argument; at most 64).
// Sandbox, so that fuzzing neither reads the machine's files nor writes any:
//   - at start the process moves into a fresh temporary folder holding the only files a command
//     can name: scenario.json (docs/examples/), config.json (tests/data/configs/gpt2.json), and the
//     limit cases big.json (5 MB, over the 4 MiB limit), deep.json and deep-config.json (80,000
//     levels deep);
//   - an argument containing '/' (a path anywhere else) is dropped, and so is "-" (standard input);
//   - after every run the folder must hold exactly those files: a command that wrote one is a
//     finding (an output option would have to be left out here before fuzzing it).
// Run the binary with absolute paths for the corpus and -artifact_prefix (scripts/fuzz.sh does):
// relative ones would point into the sandbox.
//
// Checks: the exit status is one of 0-3; a failure says why on stderr (no raw control character) and a success prints
// something; the sandbox is unchanged. With VRAMLENS_FUZZ_EXPECT_ERROR=TEXT (scripts/fuzz.sh,
// limit cases): status 1 and TEXT on stderr.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli.h"
#include "export.h"
#include "fuzz_checks.h"

namespace {

namespace fs = std::filesystem;

fs::path g_sandbox;
std::set<std::string> g_files;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (!in && !in.eof()) vl::fuzz::fail("cannot read " + p.string());
    return ss.str();
}

void put(const std::string& name, const std::string& text) {
    std::ofstream(g_sandbox / name, std::ios::binary) << text;
    g_files.insert(name);
}

void remove_sandbox() {
    std::error_code ec;
    if (!g_sandbox.empty()) fs::remove_all(g_sandbox, ec);
}

std::vector<std::string> split_args(std::string_view input) {
    std::vector<std::string> args;
    std::string word;
    auto end_word = [&] {
        if (word.find('/') == std::string::npos && word != "-") args.push_back(word);
        word.clear();
    };
    for (char c : input) {
        if (c == '\n' || c == '\0') {
            end_word();
            if (args.size() == 64) return args;
        } else {
            word += c;
        }
    }
    if (!word.empty()) end_word();
    return args;
}

// Sandboxes of earlier processes that ended in a finding (an abort skips atexit): removed when the
// process named in them is gone.
void remove_stale_sandboxes() {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
        const std::string name = e.path().filename().string(), prefix = "vramlens_fuzz_cli_";
        if (name.rfind(prefix, 0) != 0) continue;
        const std::string pid = name.substr(prefix.size(), name.find('_', prefix.size()) - prefix.size());
        if (!pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos && !fs::exists("/proc/" + pid))
            fs::remove_all(e.path(), ec);
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    remove_stale_sandboxes();
    std::string tmpl = (fs::temp_directory_path() / ("vramlens_fuzz_cli_" + std::to_string(::getpid()) + "_XXXXXX")).string();
    if (!::mkdtemp(tmpl.data())) vl::fuzz::fail("cannot create a temporary folder");
    g_sandbox = tmpl;
    std::atexit(remove_sandbox);
    put("scenario.json", slurp(VRAMLENS_SOURCE_DIR "/docs/examples/llama-3-8b-lora-4090.json"));
    put("config.json", slurp(VRAMLENS_SOURCE_DIR "/tests/data/configs/gpt2.json"));
    // Limit cases of core/json_input.h, valid JSON apart from their size or depth.
    put("big.json", R"({"version": 1, "model": {"params": 7e9, "name": ")" + std::string(5'000'000, 'a') + "\"}}");
    const std::string deep = std::string(80000, '[') + std::string(80000, ']');
    put("deep.json", R"({"version": 1, "model": )" + deep + "}");
    put("deep-config.json", R"({"model_type": "llama", "hidden_size": )" + deep + "}");
    fs::current_path(g_sandbox);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vl;
    const std::vector<std::string> args = split_args(std::string_view(reinterpret_cast<const char*>(data), size));
    std::string out, err;
    const int status = cli::run(args, out, err);

    std::string line;  // the command line for messages, control characters as \xNN
    for (const std::string& a : args) line += (line.empty() ? "" : " ") + escape_control_chars(a.substr(0, 80));
    line = line.substr(0, 400);
    for (size_t i = 0; i < err.size(); ++i) {  // stderr quotes input escaped (cli.cpp terminal_safe)
        const auto c = static_cast<unsigned char>(err[i]);
        const auto next = i + 1 < err.size() ? static_cast<unsigned char>(err[i + 1]) : 0u;
        const bool c1 = c == 0xc2 && next >= 0x80 && next <= 0x9f;  // U+0080..U+009F; a stray 0xc2 is no control
        if ((c < 0x20 && c != '\n') || c == 0x7f || c1) fuzz::fail("vramlens " + line + ": stderr has a raw control character");
    }
    if (status < 0 || status > 3) fuzz::fail("vramlens " + line + ": exit status " + std::to_string(status));
    if (status != 0 && err.empty()) fuzz::fail("vramlens " + line + ": failed (status " + std::to_string(status) + ") without a message");
    if (status == 0 && out.empty()) fuzz::fail("vramlens " + line + ": succeeded and printed nothing");
    if (fuzz::expected_error()) fuzz::check_expected_error(status == 0 || status == 3, err, ("vramlens " + line).c_str());
    if (fuzz::expected_error() && status != cli::kBadInput)
        fuzz::fail("vramlens " + line + ": status " + std::to_string(status) + ", not 1 (invalid input)");

    std::set<std::string> now;
    for (const auto& e : fs::directory_iterator(g_sandbox)) now.insert(e.path().filename().string());
    if (now != g_files) {
        std::string extra;
        for (const std::string& f : now)
            if (!g_files.count(f)) extra += " " + f;
        fuzz::fail("vramlens " + line + ": the sandbox changed (new:" + extra + ")");
    }
    return 0;
}
