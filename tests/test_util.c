/* test_util.c - helpers shared by the test files. */
#include "test_groups.h"

#include "measure/measure.h"
#include "variants/registry.h"

#include "segbench/image_io.h"
#include "segbench/rng.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

void test_random_grey(sb_image *img, int width, int height, unsigned long long seed)
{
    if (sb_image_alloc(img, width, height, 1, NULL) != SB_OK) {
        fprintf(stderr, "test image %dx%d: out of memory\n", width, height);
        exit(2);
    }
    sb_rng r;
    sb_rng_seed(&r, seed);
    for (size_t i = 0; i < (size_t)width * height; i++)
        img->data[i] = (unsigned char)sb_rng_next(&r);
}

void test_fill(sb_image *img, int width, int height, int channels, unsigned char value)
{
    if (sb_image_alloc(img, width, height, channels, NULL) != SB_OK) {
        fprintf(stderr, "test image %dx%d: out of memory\n", width, height);
        exit(2);
    }
    memset(img->data, value, img->stride * (size_t)height);
}

int test_count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    return n;
}

static char *path_ring(void)
{
    static char paths[32][1024];  /* a ring: a few live at once */
    static int next;
    return paths[next++ % 32];
}

const char *test_path(const char *name)
{
    char *p = path_ring();
    snprintf(p, 1024, "%s/%s", sb_test_dir(), name);
    return p;
}

const char *test_pathf(const char *fmt, ...)
{
    char name[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return test_path(name);
}

const char *test_grey_png(const char *name, int width, int height, unsigned long long seed)
{
    const char *path = test_path(name);
    if (access(path, F_OK) != 0) {
        sb_image img;
        test_random_grey(&img, width, height, seed);
        sb_error err;
        if (sb_image_save(path, &img, &err) != SB_OK)
            exit(2);
        sb_image_free(&img);
    }
    return path;
}

void test_sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    CHECKF(system(cmd) == 0, "%s", cmd);
}

void test_check_cpu_variants(const sb_case *c, const char *what)
{
    static const int threads[] = { 1, 2, 3, 7 };
    sb_error err = { SB_OK, "" };
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, c->algo->name) || (v->flags & SB_DEVICE) || !v->ops)
            continue;
        for (int t = 0; t < ((v->flags & SB_THREADED) ? 4 : 1); t++) {
            sb_agreement ag = { 0, "FAIL", "did not run" };
            sb_status st = sb_check_only(c, v, threads[t], NULL, &ag, &err);
            CHECKF(st == SB_OK, "%s/%s@%d %s: %s", c->algo->name, v->name, threads[t], what, err.msg);
            CHECKF(ag.ok, "%s/%s@%d %s: %s", c->algo->name, v->name, threads[t], what, ag.metric);
        }
    }
}

sb_row *test_row_add(sb_rows *rows, const char *algo, const char *stage, const char *variant, const char *backend,
                     int threads, const char *image, int width, int height)
{
    sb_row *r = sb_rows_add(rows);
    if (!r)
        return NULL;
    snprintf(r->algo, sizeof r->algo, "%s", algo);
    snprintf(r->stage, sizeof r->stage, "%s", stage);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    snprintf(r->image, sizeof r->image, "%s", image);
    r->threads = threads;
    r->width = width;
    r->height = height;
    return r;
}

sb_status test_fetch_nothing(void *state, sb_error *err)
{
    (void)state, (void)err;
    return SB_OK;
}

void test_release_nothing(void *state) { (void)state; }

void test_integral_case(sb_case_data *cd, sb_image *img)
{
    sb_error err;
    test_random_grey(img, 16, 8, 1);
    CHECKF(sb_case_open(cd, NULL, sb_algo_find("integral"), 0, NULL, img, &err) == SB_OK, "%s", err.msg);
}

const char *test_sbgen_path(void)
{
    static char path[4200];
    if (!realpath("build/sbgen", path) && !realpath("build-asan/sbgen", path))
        return NULL;
    return path;
}

int test_build_set(const char *root, const char *name, const char *lines)
{
    const char *sbgen = test_sbgen_path();
    char set[1200];
    snprintf(set, sizeof set, "%s", test_pathf("%s.set", name));
    FILE *fp = fopen(set, "w");
    if (!fp || !sbgen) {
        CHECKF(0, "%s", fp ? "no build/sbgen to make the test's set (make build/sbgen)" : "cannot write the set file");
        if (fp)
            fclose(fp);
        return 0;
    }
    fputs(lines, fp);
    fclose(fp);
    test_sh("mkdir -p %s/datasets/build && %s %s %s/datasets/build/%s 2>/dev/null", root, sbgen, set, root, name);
    return 1;
}
