// vramlens_gen_docs: writes the generated documentation (accuracy_report.h): docs/accuracy.md.
// Run through scripts/gen-docs.sh, on purpose; the tests only compare.
//   vramlens_gen_docs REPO_ROOT [OUT_ROOT]     (OUT_ROOT defaults to REPO_ROOT: rewrite in place)
#include <cstdio>
#include <exception>
#include <string>

#include "accuracy_report.h"

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: vramlens_gen_docs REPO_ROOT [OUT_ROOT]\n");
        return 2;
    }
    const std::string source = argv[1], out = argc > 2 ? argv[2] : argv[1];
    try {
        const auto changed = vl::report::generate_docs(source, out);
        for (const std::string& f : vl::report::kGeneratedFiles) {
            bool was_changed = false;
            for (const std::string& c : changed) was_changed = was_changed || c == f;
            std::printf("  %-20s %s\n", f.c_str(), was_changed ? "written" : "unchanged");
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vramlens_gen_docs: %s\n", e.what());
        return 1;
    }
    return 0;
}
