/* result_set.c - survey of a results directory (see result_set.h). */
#include "io/result_set.h"

#include "base/files.h"

#include "machine/env.h"
#include "variants/registry.h"
#include "io/rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUNS = 16 };

typedef struct run_tally {
    char run_id[48], commit[64], algos[400];
    int rows;
} run_tally;

static void note(sb_result_set *rs, const char *text)
{
    if (rs->nnotes < SB_SET_MAX_NOTES)
        snprintf(rs->notes[rs->nnotes++], SB_SET_NOTE_MAX, "%s", text);
}

/* First 7 characters of a commit, keeping a "-dirty" mark. */
static void short_commit(const char *commit, char *out, size_t size)
{
    const char *dirty = strstr(commit, "-dirty");
    snprintf(out, size, "%.7s%s", commit, dirty ? "-dirty" : "");
}

/* Is name one of the ", "-separated names of list (whole names only:
 * "meanshift" is not in "meanshift-flood")? */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

static int tally(run_tally *runs, int *nruns, const sb_row *r, const char *algo)
{
    int k = 0;
    while (k < *nruns && strcmp(runs[k].run_id, r->run_id) != 0)
        k++;
    if (k == *nruns) {
        if (*nruns == MAX_RUNS)
            return 0;
        memset(&runs[k], 0, sizeof runs[k]);
        snprintf(runs[k].run_id, sizeof runs[k].run_id, "%s", r->run_id);
        snprintf(runs[k].commit, sizeof runs[k].commit, "%s", r->commit);
        (*nruns)++;
    }
    runs[k].rows++;
    if (!listed(runs[k].algos, algo)) {
        size_t n = strlen(runs[k].algos);
        snprintf(runs[k].algos + n, sizeof runs[k].algos - n, "%s%s", n ? ", " : "", algo);
    }
    return 1;
}

int sb_published_at(const char *root, int n, char *out, size_t size)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/published.txt", root);
    char *text = sb_read_text(path);
    int k = 0, found = 0;
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line && !found; line = strtok_r(NULL, "\n", &save)) {
        line += strspn(line, " \t");
        line[strcspn(line, " \t\r#")] = '\0';
        if (!*line)
            continue;
        if (k++ == n) {
            snprintf(out, size, "%s", line);
            found = 1;
        }
    }
    free(text);
    return found;
}

int sb_published_index(const char *results_root, const char *machine)
{
    char id[128];
    for (int n = 0; sb_published_at(results_root, n, id, sizeof id); n++)
        if (strcmp(id, machine) == 0)
            return n;
    return -1;
}

void sb_published_reference(const char *results_root, char *out, size_t size)
{
    if (!sb_published_at(results_root, 0, out, size))
        out[0] = '\0';
}

void sb_reference_results_dir(const char *results_root, char *out, size_t size)
{
    char ref[200];
    sb_published_reference(results_root, ref, sizeof ref);
    snprintf(out, size, "%s/%s", results_root, ref[0] ? ref : "h200");
}

void sb_result_set_survey(const char *dir, sb_result_set *rs)
{
    memset(rs, 0, sizeof *rs);
    char path[SB_PATH_MAX], line[SB_SET_NOTE_MAX];
    const sb_run_info *ri = &rs->run;
    sb_run_info_read(dir, &rs->run);
    rs->finished = strcmp(ri->finished, "true") == 0;
    if (strcmp(ri->finished, "false") == 0) {
        snprintf(line, sizeof line, "run %s did not finish: %s of %s planned rows measured "
                 "(`segbench bench --resume` with the same options finishes it)", ri->run_id, ri->measured,
                 ri->planned);
        note(rs, line);
    }

    run_tally runs[MAX_RUNS];
    int nruns = 0, students = 0;
    char commits[MAX_RUNS][64], student_names[200] = "";
    for (int a = 0; a < sb_algo_count(); a++) {
        sb_rows rows;
        sb_error err;
        snprintf(path, sizeof path, "%s/%s.csv", dir, sb_algo_at(a)->name);
        if (sb_rows_read_csv(path, &rows, &err) != SB_OK)
            continue;
        for (int i = 0; i < rows.count; i++) {
            const sb_row *r = &rows.row[i];
            tally(runs, &nruns, r, sb_algo_at(a)->name);
            if (!sb_is_student_variant(r->variant))
                continue;
            char named[120];
            snprintf(named, sizeof named, "%s/%s", r->algo, r->variant);
            if (!students++ || !strstr(student_names, named))
                snprintf(student_names + strlen(student_names), sizeof student_names - strlen(student_names), "%s%s",
                         student_names[0] ? ", " : "", named);
        }
        rs->rows += rows.count;
        sb_rows_free(&rows);
    }
    rs->runs = nruns;
    if (students) {
        snprintf(line, sizeof line, "%d rows of students' rungs (%.60s) are in this set: a course exercise "
                 "was built in the tree it ran from (exercises/). The report leaves them out, since they are no "
                 "rungs of the ladders; bench leaves them out unless --variant names them", students, student_names);
        note(rs, line);
    }
    for (int k = 0; k < nruns; k++) {
        int seen = 0;
        for (int j = 0; j < rs->commits; j++)
            seen |= strcmp(commits[j], runs[k].commit) == 0;
        if (!seen)
            snprintf(commits[rs->commits++], sizeof commits[0], "%s", runs[k].commit);
    }
    if (nruns > 1) {
        snprintf(line, sizeof line, "the rows come from %d runs%s%s:", nruns,
                 rs->commits > 1 ? " of different commits" : " of one commit",
                 rs->commits > 1 ? " (their times may not be comparable)" : "");
        note(rs, line);
        for (int k = 0; k < nruns; k++) {
            char c[32];
            short_commit(runs[k].commit, c, sizeof c);
            snprintf(line, sizeof line, "  run %.47s, commit %.31s: %d rows (%.150s)", runs[k].run_id, c, runs[k].rows,
                     runs[k].algos);
            note(rs, line);
        }
    }
    for (int k = 0; k < nruns; k++)
        if (strcmp(runs[k].run_id, "unknown") == 0) {
            snprintf(line, sizeof line, "%d rows carry no commit or run id (written by a segbench before "
                     "run ids): which runs and commits they mix cannot be told", runs[k].rows);
            note(rs, line);
        }
    if (nruns == 1 && strstr(runs[0].commit, "-dirty")) {
        snprintf(line, sizeof line, "measured from a tree with uncommitted changes (commit %.7s-dirty)", runs[0].commit);
        note(rs, line);
    }
}

void sb_result_set_provenance(const char *csv_path, char *out, size_t size)
{
    sb_rows rows;
    sb_error err;
    snprintf(out, size, "unknown");
    if (sb_rows_read_csv(csv_path, &rows, &err) != SB_OK)
        return;
    run_tally runs[MAX_RUNS];
    int nruns = 0;
    for (int i = 0; i < rows.count; i++)
        tally(runs, &nruns, &rows.row[i], rows.row[i].algo);
    size_t n = 0;
    out[0] = '\0';
    for (int k = 0; k < nruns && n + 1 < size; k++) {
        char c[32];
        short_commit(runs[k].commit, c, sizeof c);
        n += (size_t)snprintf(out + n, size - n, "%scommit %s, run %s (%d rows)", k ? "; " : "", c, runs[k].run_id,
                              runs[k].rows);
    }
    sb_rows_free(&rows);
}
