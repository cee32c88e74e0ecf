// Runs a shell command from a test and collects what it printed on stdout and its exit status
// (-1 when it did not exit normally). The command text is shell: callers quote what needs it.
#pragma once
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

struct ShellResult {
    int status = -1;
    std::string out;
};

inline ShellResult shell_command(const std::string& command) {
    ShellResult r;
    FILE* p = ::popen(command.c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}
