// The vramlens command-line tool, run as a process (issue 7): output, files, exit statuses, and
// bad input named by field. VRAMLENS_CLI_PATH is set by tests/CMakeLists.txt when the CLI is built.
#include <catch2/catch.hpp>

#ifdef VRAMLENS_CLI_PATH
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Run {
    int status = -1;
    std::string out;
    std::string err;
};

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("vramlens_cli_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `vramlens ARGS` (ARGS is shell text; tests quote what needs it).
Run vramlens(const std::string& args, const std::string& stdin_text = "") {
    const std::string err_file = temp_path("stderr");
    const std::string in_file = temp_path("stdin");
    std::ofstream(in_file) << stdin_text;
    const std::string cmd = std::string("'") + VRAMLENS_CLI_PATH + "' " + args + " <'" + in_file + "' 2>'" + err_file + "'";
    Run r;
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.err = slurp(err_file);
    std::remove(err_file.c_str());
    std::remove(in_file.c_str());
    return r;
}

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = temp_path(name);
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("cli: --version and --help") {
    Run v = vramlens("--version");
    CHECK(v.status == 0);
    CHECK(v.out == std::string("vramlens ") + VRAMLENS_VERSION + " (scenario format 1, share links v1)\n");
    Run h = vramlens("--help");
    CHECK(h.status == 0);
    CHECK_THAT(h.out, Catch::Contains("vramlens estimate [SCENARIO.json]"));
    CHECK_THAT(h.out, Catch::Contains("--micro-batch X"));
    Run none = vramlens("");
    CHECK(none.status == 2);
    CHECK_THAT(none.err, Catch::Contains("usage:"));
}

TEST_CASE("cli: usage errors exit 2 and say what is wrong") {
    Run r = vramlens("frobnicate");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: unknown command \"frobnicate\" (see `vramlens --help`)\n");
    r = vramlens("estimate --micro-batchh 4");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: unknown option --micro-batchh (see `vramlens --help`)\n");
    r = vramlens("estimate --seq");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: --seq needs a value\n");
    r = vramlens("estimate --format xml");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: --format must be one of \"table\", \"json\", \"markdown\" or \"csv\"; got \"xml\"\n");
    r = vramlens("estimate --set fragmentation");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("--set needs PATH=VALUE"));
    r = vramlens("estimate a.json b.json");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: unexpected argument \"b.json\"\n");
}

TEST_CASE("cli: bad scenario values exit 1 naming the field and the flag") {
    Run r = vramlens("estimate --params 7e9 --micro-batch abc --precision bf17 --zero 1e12");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  train.micro_batch (from --micro-batch): must be an integer; got \"abc\"\n"));
    CHECK_THAT(r.err, Catch::Contains("  train.precision (from --precision): must be one of \"fp32\""));
    CHECK_THAT(r.err, Catch::Contains("  parallel.zero (from --zero): must be an integer of magnitude at most 2147483647; got 1000000000000.0\n"));
    r = vramlens("estimate --params 7e9 --set parallel.tpp=2");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  parallel.tpp (from --set parallel.tpp): unknown field\n"));
    r = vramlens("estimate --model no-such-model");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  model (from --model): unknown preset id \"no-such-model\""));
}

TEST_CASE("cli: bad scenario files exit 1 naming the file and the field") {
    Run r = vramlens("estimate /nonexistent/s.json");
    CHECK(r.status == 1);
    CHECK(r.err == "vramlens: cannot read /nonexistent/s.json: No such file or directory\n");
    const std::string broken = write_temp("broken.json", "{\"version\": 1,\n \"train\": {\"micro_batch\": 4,}}");
    r = vramlens("estimate '" + broken + "'");
    CHECK(r.status == 1);
    // Line 2 is ` "train": {"micro_batch": 4,}}`: the stray `}` is its 29th character.
    CHECK_THAT(r.err, Catch::Contains("is not a valid scenario:\n  json: parse error at line 2, column 29"));
    const std::string old = write_temp("newer.json", R"({"version": 2, "model": "x"})");
    r = vramlens("estimate '" + old + "'");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  version: is 2, newer than this build reads (1); update vramlens\n"));
    std::remove(broken.c_str());
    std::remove(old.c_str());
}

TEST_CASE("cli: `scenario` prints the normalized file; flags apply on top of it, in order") {
    const std::string file = write_temp("s.json", R"({"version": 1, "model": {"name": "My 7B", "params": 7e9},
                                                      "train": {"micro_batch": 2}, "parallel": {"dp": 4}})");
    Run r = vramlens("scenario '" + file + "' --micro-batch 8 --tp 2 --sp --set overheads.fragmentation=0.25 --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["version"] == 1);
    CHECK(j["model"]["name"] == "My 7B");
    CHECK(j["model"]["params"] == 7000000000);
    CHECK(j["train"]["micro_batch"] == 8);     // the flag wins over the file's 2
    CHECK(j["parallel"]["dp"] == 4);           // from the file
    CHECK(j["parallel"]["tp"] == 2);
    CHECK(j["parallel"]["sp"] == true);
    CHECK(j["gpu_count"] == 8);                // not given: dp 4 * tp 2
    CHECK(j["overheads"]["fragmentation"] == 0.25);
    CHECK(j["train"]["seq_len"] == 2048);      // scenario.h default
    // Standard input as the file.
    Run s = vramlens("scenario - --gpus 16", R"({"version": 1, "model": {"params": 1000}})");
    REQUIRE(s.status == 0);
    CHECK(nlohmann::json::parse(s.out)["gpu_count"] == 16);
    std::remove(file.c_str());
}

TEST_CASE("cli: a custom GPU by its memory") {
    Run r = vramlens("scenario --params 1000 --gpu-memory-gib 24");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["gpu"]["name"] == "Custom GPU");
    CHECK(j["gpu"]["memory_bytes"] == 25769803776.0);  // 24 * 2^30
}

TEST_CASE("cli: `link` encodes and `link --decode` reads back, also from a whole URL") {
    Run l = vramlens("link --params 1000 --set model.name=Tiny");
    REQUIRE(l.status == 0);
    // The same link as share_link_test's exact case (Python zlib + base64 derived).
    CHECK(l.out == "v1.eyJ2ZXJzaW9uIjoxLCJtb2RlbCI6eyJuYW1lIjoiVGlueSIsInBhcmFtcyI6MTAwMH19oid6yQ\n");
    Run d = vramlens("link --decode 'https://example.org/vramlens/#" + l.out.substr(0, l.out.size() - 1) + "'");
    REQUIRE(d.status == 0);
    nlohmann::json j = nlohmann::json::parse(d.out);
    CHECK(j["model"]["name"] == "Tiny");
    CHECK(j["model"]["params"] == 1000);
    Run bad = vramlens("link --decode v1.eyJ2ZXJzaW9uIjoxLCJtb2RlbCI6eyJuYW1lIjoiVGlueSIsInBhcmFtcyI6MTAwMH19oid6yR");
    CHECK(bad.status == 1);
    CHECK_THAT(bad.err, Catch::Contains("  link: damaged"));
}

TEST_CASE("cli: import of an unreadable or invalid config") {
    Run r = vramlens("import");
    CHECK(r.status == 2);
    r = vramlens("import /nonexistent/config.json");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("cannot read /nonexistent/config.json"));
}

#endif  // VRAMLENS_CLI_PATH
