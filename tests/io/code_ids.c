/* code_ids.c - a variant's code identity (base/code_id.h) and a row's
 * (io/code_ids.h): what reaches a variant, what leaves its identity alone,
 * and the build's identities against the tree's. */
#include "test.h"
#include "test_groups.h"
#include "cli_util.h"

#include "base/code_id.h"
#include "variants/registry.h"
#include "io/code_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An in-memory tree: path, text pairs, NULL-terminated. */
static char *read_fake(const char *path, void *ctx)
{
    const char *const *tree = ctx;
    for (int i = 0; tree[i]; i += 2)
        if (strcmp(tree[i], path) == 0)
            return strdup(tree[i + 1]);
    return NULL;
}

static void test_what_reaches_a_variant(void)
{
    const char *rung_a = "/* a rung\n * Measured (the run of record: m, run 1, commit abc;\n *   1 ms\n */\n"
                         "#include \"dev.cuh\"\n#include \"../warp.cuh\"\n#include <stdio.h>\nint k;\n";
    const char *rung_b = "/* a rung\n * Measured (the run of record: m, run 2, commit def;\n *   2 ms\n */\n"
                         "#include \"dev.cuh\"\n#include \"../warp.cuh\"\n#include <stdio.h>\nint k;\n";
    const char *tree[] = { "impl_cuda/x/1_a.cu", rung_a, "impl_cuda/x/dev.cuh", "#include \"segbench/x.h\"\n",
                           "impl_cuda/x/dev.cu", "int dev;\n", "impl_cuda/warp.cuh", "int warp;\n",
                           "include/segbench/x.h", "int x;\n", "impl_pthread/x_pthread.c",
                           "#include \"x_host.h\"\n", "impl_cpu/x_host.h", "int host;\n", "impl_cpu/x.c", "int serial;\n",
                           NULL };
    char id[SB_CODE_ID_LEN + 1], again[SB_CODE_ID_LEN + 1];
    /* the rung, dev.cuh and its dev.cu, ../warp.cuh, and segbench/x.h from include/ */
    CHECKF(sb_code_id("impl_cuda/x/1_a.cu", read_fake, tree, id) == 5 && strlen(id) == SB_CODE_ID_LEN, "%s", id);
    tree[1] = rung_b;                         /* only the measured block differs */
    sb_code_id("impl_cuda/x/1_a.cu", read_fake, tree, again);
    CHECKF(strcmp(id, again) == 0, "a new measured block changed the identity: %s against %s", id, again);
    tree[7] = "int warp; /* changed */\n";    /* an included header */
    sb_code_id("impl_cuda/x/1_a.cu", read_fake, tree, again);
    CHECKF(strcmp(id, again) != 0, "a changed header left the identity at %s", id);
    tree[7] = "int warp;\n";
    tree[5] = "int dev = 1;\n";               /* the implementation beside a header */
    sb_code_id("impl_cuda/x/1_a.cu", read_fake, tree, again);
    CHECKF(strcmp(id, again) != 0, "a changed dev.cu left the identity at %s", id);
    /* impl_pthread reaches impl_cpu's x_host.h, and through it the serial x.c */
    CHECK(sb_code_id("impl_pthread/x_pthread.c", read_fake, tree, id) == 3);
    CHECK(sb_code_id("impl_cuda/x/none.cu", read_fake, tree, id) == 0 && id[0] == '\0');
}

/* The paths a code identity read (read_recording's). */
typedef struct {
    char path[64][200];
    int count;
} read_log;

static char *read_recording(const char *path, void *ctx)
{
    read_log *log = ctx;
    if (log->count < 64)
        snprintf(log->path[log->count++], sizeof log->path[0], "%s", path);
    return sb_code_id_read_tree(path, ".");
}

/* The name a line of a rung file defines for other files -- a line that
 * starts with a type, neither static nor extern, and defines a function
 * or a table (exercise.c's rule) -- into name; 0 when it defines none. */
static int lent_name(const char *line, size_t len, char name[64])
{
    static const char *const types[] = { "sb_status ", "void ", "int ", "const " };
    int typed = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        typed |= strncmp(line, types[t], strlen(types[t])) == 0;
    const char *end = line;
    while (end < line + len && *end != '(' && *end != '=')
        end++;
    if (!typed || end == line + len || (memchr(line, ';', len) && !memchr(line, '{', len) && *end == '('))
        return 0;
    while (end > line && end[-1] == ' ')
        end--;
    const char *start = end;
    while (start > line && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
                            (start[-1] >= '0' && start[-1] <= '9')))
        start--;
    if (end - start < 3 || end - start >= 64)
        return 0;
    snprintf(name, 64, "%.*s", (int)(end - start), start);
    return 1;
}

/* Whether `text` uses `name` as a whole word. */
static int uses(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        char before = p == text ? ' ' : p[-1], after = p[n];
        if (!(before == '_' || (before >= 'a' && before <= 'z') || (before >= '0' && before <= '9')) &&
            !(after == '_' || (after >= 'a' && after <= 'z') || (after >= '0' && after <= '9')))
            return 1;
    }
    return 0;
}

/* A rung that runs what another rung file defines (GrabCut's cuts run
 * their parents' kernels through launchers, mean-shift's pipelines the
 * root's filter) has that file in its code identity: the files a
 * variant's identity reads are its includes and the implementations
 * beside them, so a parent lends through a header of its own
 * (3_tiles.cuh beside 3_tiles.cu).  Before, GrabCut's declared them all
 * in gc_tiles.cuh, whose gc_tiles.cu is none of them, and mean-shift's
 * ms_filter_global in ms_device.cuh: a change to the parent's kernel left
 * the child's identity as it was. */
static void test_lent_code_reaches_the_borrower(void)
{
    static char files[160][200], text[1 << 18];
    int nfiles = 0;
    for (int i = 0; i < sb_variant_count() && nfiles < 160; i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strncmp(v->file, "impl_cuda/", 10) != 0)
            continue;
        int seen = 0;
        for (int k = 0; k < nfiles; k++)
            seen |= strcmp(files[k], v->file) == 0;
        if (!seen)
            snprintf(files[nfiles++], sizeof files[0], "%s", v->file);
    }
    int lent = 0, borrowed = 0, missing = 0;
    char first_missing[400] = "";
    static read_log log;
    for (int g = 0; g < nfiles; g++) {
        test_slurp(files[g], text, sizeof text);
        char names[32][64];
        int n = 0;
        for (const char *line = text; *line && n < 32;) {
            size_t len = strcspn(line, "\n");
            n += lent_name(line, len, names[n]);
            line += len + (line[len] == '\n');
        }
        lent += n;
        for (int f = 0; f < nfiles && n; f++) {
            if (f == g)
                continue;
            static char user[1 << 18];
            test_slurp(files[f], user, sizeof user);
            int uses_one = 0;
            for (int k = 0; k < n; k++)
                uses_one |= uses(user, names[k]);
            if (!uses_one)
                continue;
            borrowed++;
            char id[SB_CODE_ID_LEN + 1];
            log.count = 0;
            sb_code_id(files[f], read_recording, &log, id);
            int reached = 0;
            for (int k = 0; k < log.count; k++)
                reached |= strcmp(log.path[k], files[g]) == 0;
            if (!reached && !missing++)
                snprintf(first_missing, sizeof first_missing, "%.150s runs what %.150s defines, outside its identity", files[f],
                         files[g]);
        }
    }
    CHECKF(lent >= 15 && borrowed >= 20 && missing == 0, "%d names lent, %d borrowings, %d outside the borrower's identity (%s)",
           lent, borrowed, missing, first_missing);
}

static void test_build_and_rows(void)
{
    /* the build's identity of every variant is the tree's now */
    int checked = 0, wrong = 0;
    char first_wrong[300] = "";
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        char id[SB_CODE_ID_LEN + 1];
        if (sb_code_id(v->file, sb_code_id_read_tree, ".", id) == 0)
            continue;
        checked++;
        if (strcmp(id, sb_variant_code_id(v)) != 0 && !wrong++)
            snprintf(first_wrong, sizeof first_wrong, "%s: built %s, tree %s", v->who, sb_variant_code_id(v), id);
    }
    CHECKF(checked > 50 && wrong == 0, "%d of %d variants differ (%s): rebuild?", wrong, checked, first_wrong);
    cli_result *r = cli("list --json --algo integral --variant cpu");
    char want[64];
    snprintf(want, sizeof want, "\"code_id\": \"%s\"", sb_variant_code_id(sb_variant_find("integral", "cpu")));
    CHECKF(r->code == 0 && strstr(r->out, want), "list --json lacks %s: %.400s", want, r->out);
    /* a row's own identity wins; two rows without one and no commit git knows cannot be said the same */
    sb_row a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    snprintf(a.algo, sizeof a.algo, "integral");
    snprintf(a.variant, sizeof a.variant, "cpu");
    b = a;
    snprintf(a.commit, sizeof a.commit, "not-a-commit");
    snprintf(b.commit, sizeof b.commit, "not-a-commit");
    CHECK(!sb_rows_same_code(NULL, &a, &b));
    snprintf(a.code_id, sizeof a.code_id, "00000000000000aa");
    snprintf(b.code_id, sizeof b.code_id, "00000000000000aa");
    CHECK(sb_rows_same_code(NULL, &a, &b));
    snprintf(b.code_id, sizeof b.code_id, "00000000000000bb");
    CHECK(!sb_rows_same_code(NULL, &a, &b));
}

const sb_test tests_io_code_ids[] = {
    { "io: a variant's code identity: its includes and their implementations, not its measured block",
      test_what_reaches_a_variant },
    { "io: the build's code identities are the tree's; list --json shows them; rows compare by them",
      test_build_and_rows },
    { "io: a rung that runs another rung file's code has that file in its code identity",
      test_lent_code_reaches_the_borrower },
};
const int tests_io_code_ids_count = sizeof tests_io_code_ids / sizeof tests_io_code_ids[0];
