/* make.c - the build itself (issue "The README's two commands in
 * minutes"): an nvcc that cannot compile on this machine is named in one
 * line, and the CPU build goes on without CUDA; a new set of GPU targets
 * relinks the programs.  Each case runs make in a copy of the tree, so
 * the suite's own build is never touched while other tests use it. */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "test_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A suite built elsewhere (build-asan) is not the one these copies extend. */
static int in_make_test_build(void)
{
    const char *exe = test_segbench_path();
    if (!strstr(exe, "build/segbench") || strstr(exe, "build-asan")) {
        printf("    (skipped in this build: make test runs it)\n");
        return 0;
    }
    return 1;
}

/* A copy of what make needs (the built objects too: only what changes is
 * rebuilt) at <test dir>/<name>; its path, or NULL (not make test's build,
 * or the copy failed). */
static const char *tree_copy(const char *name)
{
    if (!in_make_test_build())
        return NULL;
    static char tree[700];
    snprintf(tree, sizeof tree, "%s", test_pathf("%s", name));
    char cmd[2000];
    snprintf(cmd, sizeof cmd,
             "rm -rf %s && mkdir -p %s && cp -a Makefile include common bench datasets scripts impl_cpu impl_pthread "
             "impl_cuda build %s/",
             test_shq(tree), test_shq(tree), test_shq(tree));
    int rc = system(cmd);
    CHECKF(rc == 0, "copying the tree to %s failed", tree);
    return rc ? NULL : tree;
}

/* nvcc stand-ins that cannot compile: one says why (an nvcc too new for
 * the host compiler), one fails with no word at all. */
static void test_nvcc_that_cannot_compile(void)
{
    const char *tree = tree_copy("broken-nvcc");
    if (!tree)
        return;
    const char *fakes[][2] = {
        { "too-new", "echo 'error -- unsupported GNU version! gcc versions later than 9 are not supported!' >&2" },
        { "silent", "true" },
    };
    for (int i = 0; i < 2; i++) {
        char nvcc[800], log[800], text[1 << 14];
        snprintf(nvcc, sizeof nvcc, "%s/bin-%s/nvcc", tree, fakes[i][0]);
        snprintf(log, sizeof log, "%s/make-%s.log", tree, fakes[i][0]);
        test_sh("mkdir -p %s/bin-%s && printf '#!/bin/sh\\ncase \"$*\" in *--version*) echo release 99.0; exit 0;; "
                "esac\\n%%s\\nexit 1\\n' \"%s\" > %s && chmod +x %s",
                test_shq(tree), fakes[i][0], fakes[i][1], test_shq(nvcc), test_shq(nvcc));
        char cmd[3000];
        snprintf(cmd, sizeof cmd, "make -C %s NVCC=%s CUDA_ARCH=90 build/segbench >%s 2>&1", test_shq(tree),
                 test_shq(nvcc), test_shq(log));
        int rc = system(cmd);
        test_slurp(log, text, sizeof text);
        int lines = 0;
        for (const char *p = text; (p = strstr(p, "cannot compile here")); p++)
            lines++;
        CHECKF(rc == 0 && lines == 1 && strstr(text, "building without CUDA") &&
                   (i == 1 || strstr(text, "unsupported GNU version")),
               "%s nvcc: make exit %d, %d lines naming it:\n%.3000s", fakes[i][0], rc, lines, text);
        char exe[800];
        snprintf(exe, sizeof exe, "%s/build/segbench", tree);
        cli_result *r = cli_exe(exe, "--version");
        CHECKF(r->code == 0 && strstr(r->out, "cuda archs: none"), "%s nvcc: %s", fakes[i][0], r->out);
        r = cli_exe(exe, "list --algo integral");
        CHECKF(r->code == 0 && strstr(r->out, "cuda-pdl") && strstr(r->out, "not built"), "%s nvcc:\n%s",
               fakes[i][0], r->out);
    }
}

/* The programs depend on a record of what they are linked from
 * (build/gen/link: the device objects or the stub, and the libraries).
 * Before it, a build without device code after one with it kept the old
 * binary: the stub's object was older than the last link. */
static void test_targets_relink(void)
{
    const char *tree = tree_copy("relink");
    if (!tree)
        return;
    char link[900], cmd[2000];
    snprintf(link, sizeof link, "%s/build/gen/link", tree);
    snprintf(cmd, sizeof cmd, "make -C %s build/segbench 2>&1 | grep -c 'LINK  build/segbench'", test_shq(tree));
    int links[3];
    for (int i = 0; i < 3; i++) {
        if (i == 1) {                     /* as if the last link had been for other GPU targets (on a GPU
                                             host the build's own are its GPU's: cuda-90 on the H200) */
            FILE *fp = fopen(link, "w");
            CHECK(fp != NULL);
            if (fp) {
                fputs("build/cuda-other/impl_cuda/runtime.o -lcudart\n", fp);
                fclose(fp);
            }
        }
        FILE *fp = popen(cmd, "r");
        if (!fp || fscanf(fp, "%d", &links[i]) != 1)
            links[i] = -1;
        if (fp)
            pclose(fp);
    }
    CHECKF(links[1] == 1 && links[2] == 0, "links after another target set: %d, then again: %d", links[1], links[2]);
    static char text[4096];
    test_slurp(link, text, sizeof text);
    CHECKF(strstr(text, "runtime") && !strstr(text, "cuda-other"), "the record now: %.300s", text);
}

const sb_test tests_build[] = {
    { "build: an nvcc that cannot compile is named in one line; the CPU build goes on without CUDA",
      test_nvcc_that_cannot_compile },
    { "build: a new set of GPU targets (or none) relinks the programs", test_targets_relink },
};
const int tests_build_count = sizeof tests_build / sizeof tests_build[0];
