// vramlens command-line tool. Formats what the core computes; no formulas here.
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc > 1 && (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "version") == 0)) {
        std::printf("vramlens %s\n", VRAMLENS_VERSION);
        return 0;
    }
    std::fprintf(stderr, "usage: vramlens --version\n");
    return 2;
}
