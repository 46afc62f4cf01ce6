/* report_streams.c - the stream rows in the report (report_parts.h): the
 * first screen's streaming table, the summary's streaming pick, and the
 * lessons page's frames-in-flight table. */
#include "pages/report_parts.h"

#include "variants/algo.h"
#include "variants/registry.h"
#include "base/files.h"
#include "io/stream_rows.h"

#include "segbench/error.h"

#include <stdlib.h>
#include <string.h>

void stream_set_read(const char *results_dir, const char *algo, stream_set *ss)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.stream.csv", results_dir, algo);
    sb_error ignored;
    if (sb_stream_rows_read(path, &ss->row, &ss->count, &ignored) != SB_OK) {
        ss->row = NULL;
        ss->count = 0;
    }
}

void stream_set_free(stream_set *ss)
{
    free(ss->row);
    ss->row = NULL;
    ss->count = 0;
}

static int is_device_row(const sb_stream_row *r) { return !view_is_cpu_backend(r->backend); }

/* The fastest agreeing row of one kind at one scene and stage, from
 * frames in the algorithm's own format (colour frames to a grey
 * algorithm are a lesson of their own: the lessons page). */
static const sb_stream_row *best_at(const stream_set *ss, const char *stage, const char *sequence, int device)
{
    const sb_stream_row *best = NULL;
    for (int i = 0; i < ss->count; i++) {
        const sb_stream_row *r = &ss->row[i];
        if (strcmp(r->stage, stage) || strcmp(r->sequence, sequence) || is_device_row(r) != device ||
            strcmp(r->agreement, "FAIL") == 0 || r->source[0])
            continue;
        if (!best || r->fps > best->fps)
            best = r;
    }
    return best;
}

/* A stream row's marks, as the other tables': \u2020 few frames an instance
 * (one or two waves of slow frames), \u00a7 unstable (its thirds disagreed). */
static const char *stream_marks(const sb_stream_row *r)
{
    int few = strstr(r->flags, "few") != NULL, unstable = strstr(r->flags, "unstable") != NULL;
    return few && unstable ? " \xe2\x80\xa0 \xc2\xa7" : few ? " \xe2\x80\xa0" : unstable ? " \xc2\xa7" : "";
}

/* A GPU row's latency tail: p99 above twice p50 (issue 48's bound on
 * every GPU stream row), marked where its latency is shown. */
static int has_tail(const sb_stream_row *r) { return is_device_row(r) && r->p99_ms > 2.0 * r->p50_ms; }
static const char *tail_mark(const sb_stream_row *r) { return has_tail(r) ? " \xe2\x80\xa1" : ""; }

/* "cuda-fused, 3 in flight" / "cpu, 16 frames side by side" */
static void who_cell(const sb_stream_row *r, char *out, size_t size)
{
    if (!r)
        snprintf(out, size, "-");
    else if (is_device_row(r))
        snprintf(out, size, "%s, %d in flight%s", r->variant, r->in_flight, sb_stream_runs_note(r));
    else
        snprintf(out, size, "%s%s%.0d, %d side by side", r->variant, r->threads > 1 ? "@" : "",
                 r->threads > 1 ? r->threads : 0, r->in_flight);
}

static void joules_cell(const sb_stream_row *r, double j, double idle_w, char *out, size_t size)
{
    if (!r || j < 0)
        snprintf(out, size, "n/a");
    else if (idle_w >= 0 && r->fps > 0)
        snprintf(out, size, "%.3g (%.3g)", j, j - idle_w / r->fps);
    else
        snprintf(out, size, "%.3g", j);
}

/* The scenes of one stage, in the order first streamed. */
static int scenes_of(const stream_set *ss, const char *stage, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < ss->count && n < max; i++) {
        if (strcmp(ss->row[i].stage, stage))
            continue;
        int seen = 0;
        for (int k = 0; k < n && !seen; k++)
            seen = !strcmp(names[k], ss->row[i].sequence);
        if (!seen)
            names[n++] = ss->row[i].sequence;
    }
    return n;
}

void report_streams_table(FILE *md, const stream_set *sets, const sb_algo *const *algos, int nalgo)
{
    int any = 0;
    for (int a = 0; a < nalgo; a++)
        any += sets[a].count;
    fprintf(md, "\n## Streaming\n\n");
    if (!any) {
        fprintf(md, "No stream rows in this set (`segbench bench --stream only` measures them: the set's "
                    "scenes through each algorithm's top GPU rung and its serial reference).\n");
        return;
    }
    fprintf(md, "A moving scene's frames through each algorithm, several in flight (`<algo>.stream.csv`): on the "
                "GPU K instances, each on its own CUDA stream with its own pinned buffers, so one frame's upload, "
                "another's kernels and a third's download overlap; on the CPU the serial reference, one frame per "
                "core. Every distinct frame was checked against its own serial reference first. *Latency*: from a "
                "frame's submission to its result on the host. *Bound*: the most the row could stream -- on the GPU the "
                "slower of its engines alone with the same K in flight (*copies*: each frame's upload and download, "
                "both ways at once; *kernels*: each frame's run, on the frame its instance holds, kernels of "
                "different frames at once where they fit), on the CPU K frames side by side at one frame's time "
                "alone (a serial row: one a core); *beaten by*: a rate above its measured bound, by the noise of "
                "the passes that measured them (or, in a file from before the engines were measured, a bound of "
                "one frame's slowest part alone, which kernels running at once beat); *runs in turn*: each frame's kernels waited for the "
                "frame before it's, so runs never shared the GPU while copies still overlapped them (where kernels "
                "that fill the GPU otherwise fall into lock-step, docs/measuring.md). *J/frame*: "
                "energy over the timed second(s), GPU (NVML) and, in brackets, above the idle draw; n/a where "
                "the counter is not readable (the CSV's energy_note says why). \xe2\x80\xa0 fewer than 3 frames an "
                "instance were timed (slow frames: one or two waves); \xc2\xa7 unstable: a third of the timed frames "
                "ran more than 10 %% from the whole's rate, so another run may differ as much; \xe2\x80\xa1 a "
                "tail: p99 latency above twice p50. Rows from colour frames to the integral image (its host or "
                "its GPU making the grey) are on its lessons page. A stream row is "
                "one measurement, of one instance of the machine: how far stream rows move from one instance to "
                "another is in docs/measuring.md (\"Streams\").\n\n");
    fprintf(md, "| algorithm | stage | scene | best GPU | frames/s | latency p50 / p99 ms | GPU J/frame (above idle) | "
                "%% of bound | best CPU | frames/s | GPU vs CPU |\n|---|---|---|---|---:|---:|---:|---:|---|---:|---:|\n");
    for (int a = 0; a < nalgo; a++) {
        const stream_set *ss = &sets[a];
        for (int s = 0; s < algos[a]->stage_count; s++) {
            const char *stage = algos[a]->stages[s], *scenes[16];
            int n = scenes_of(ss, stage, scenes, 16);
            for (int i = 0; i < n; i++) {
                const sb_stream_row *g = best_at(ss, stage, scenes[i], 1), *c = best_at(ss, stage, scenes[i], 0);
                char gw[96], cw[96], lat[48] = "-", j[48], bound[48] = "-", gf[32] = "-", cf[32] = "-", x[32] = "-";
                who_cell(g, gw, sizeof gw);
                who_cell(c, cw, sizeof cw);
                joules_cell(g, g ? g->gpu_j : -1, g ? g->gpu_idle_w : -1, j, sizeof j);
                if (g) {
                    snprintf(gf, sizeof gf, "%.1f%s", g->fps, stream_marks(g));
                    snprintf(lat, sizeof lat, "%.3g / %.3g%s", g->p50_ms, g->p99_ms, tail_mark(g));
                    sb_stream_bound_cell(g, bound, sizeof bound);
                }
                if (c)
                    snprintf(cf, sizeof cf, "%.1f%s", c->fps, stream_marks(c));
                if (g && c && c->fps > 0)
                    snprintf(x, sizeof x, "%.1fx", g->fps / c->fps);
                fprintf(md, "| [%s](%s.md) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", algos[a]->name,
                        algos[a]->name, stage, report_md(REPORT_TEXT, scenes[i]), gw, gf, lat, j, bound, cw, cf, x);
            }
        }
    }
    int failed = 0, gpu = 0, tails = 0;
    for (int a = 0; a < nalgo; a++)
        for (int i = 0; i < sets[a].count; i++) {
            failed += strcmp(sets[a].row[i].agreement, "FAIL") == 0;
            gpu += is_device_row(&sets[a].row[i]);
            tails += has_tail(&sets[a].row[i]);
        }
    if (gpu)
        fprintf(md, "\nLatency tails: %d of the %d GPU stream rows have p99 above twice p50 (\xe2\x80\xa1; each "
                    "algorithm's lessons page lists its rows). Tails come and go with the instance of the machine "
                    "(docs/measuring.md, \"Streams\").\n", tails, gpu);
    if (failed)
        fprintf(md, "\n**%d stream row(s) broke their agreement contract** (agreement FAIL in the CSV) and are left "
                    "out above.\n", failed);
}

int report_stream_use(const stream_set *ss, const char *stage, char *out, size_t size)
{
    const char *scenes[16];
    int n = scenes_of(ss, stage, scenes, 16), largest = -1;
    long most = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < ss->count; k++)
            if (!strcmp(ss->row[k].sequence, scenes[i]) && (long)ss->row[k].width * ss->row[k].height > most) {
                most = (long)ss->row[k].width * ss->row[k].height;
                largest = i;
            }
    if (largest < 0)
        return 0;
    const sb_stream_row *g = best_at(ss, stage, scenes[largest], 1), *c = best_at(ss, stage, scenes[largest], 0);
    const sb_stream_row *best = g && (!c || g->fps >= c->fps) ? g : c;
    if (!best)
        return 0;
    who_cell(best, out, size);
    return 1;
}

/* The row of `variant` on r's stage, scene and frames' source with K in
 * flight and these runs. */
static const sb_stream_row *same_scene(const stream_set *ss, const sb_stream_row *r, const char *variant, int k,
                                       const char *runs)
{
    for (int i = 0; i < ss->count; i++) {
        const sb_stream_row *o = &ss->row[i];
        if (o->in_flight == k && !strcmp(o->runs, runs) && !strcmp(o->variant, variant) &&
            !strcmp(o->sequence, r->sequence) && !strcmp(o->stage, r->stage) && !strcmp(o->source, r->source))
            return o;
    }
    return NULL;
}

void report_streams_in_flight(FILE *md, const stream_set *ss)
{
    int any = 0;
    for (int i = 0; i < ss->count; i++)
        any += is_device_row(&ss->row[i]);
    if (!any)
        return;
    fprintf(md, "## Frames in flight\n\nThe top rung streaming the set's scenes with K frames in flight, each "
                "instance on its own CUDA stream with its own pinned buffers: the lesson of the frame, copy and "
                "compute overlapped; below it, any branch off the top that narrows its output (fewer bytes on the "
                "bus) or takes the frames in colour and makes their grey on the GPU, with its gain over its parent "
                "at the same K (*from colour*: the frames came in colour; a grey rung's host made each one's grey "
                "first, inside its frame, *host* ms alone). *Bound*: the slower of its engines alone with the "
                "same K (*copies* both ways, *kernels*), or K per host ms where that is less; *upload / run / "
                "fetch*: one frame's parts alone. *In turn*: each frame's run waited for the "
                "one before it (an event), so only copies overlapped kernels. \xe2\x80\xa1 p99 latency above "
                "twice p50.\n\n"
                "| stage | scene | rung | K | frames/s | gain over K = 1 | over its parent | latency p50 / p99 ms | "
                "upload / run / fetch ms | %% of bound |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < ss->count; i++) {
        const sb_stream_row *r = &ss->row[i];
        if (!is_device_row(r))
            continue;
        const sb_variant *v = sb_variant_find(r->algo, r->variant);
        const sb_stream_row *one = same_scene(ss, r, r->variant, 1, "overlap");
        const sb_stream_row *parent = v && v->parent ? same_scene(ss, r, v->parent, r->in_flight, r->runs) : NULL;
        char gain[32] = "-", over[32] = "-", host[32] = "";
        if (one && one->fps > 0)
            snprintf(gain, sizeof gain, "%.2fx", r->fps / one->fps);
        if (parent && parent->fps > 0)
            snprintf(over, sizeof over, "%.2fx", r->fps / parent->fps);
        if (r->host_ms > 0)
            snprintf(host, sizeof host, "host %.3g; ", r->host_ms);
        int failed = !strcmp(r->agreement, "FAIL");
        char bound[64];
        sb_stream_bound_cell(r, bound, sizeof bound);
        fprintf(md, "| %s | %s%s | %s | %d%s | %s%.1f%s | %s | %s | %.3g / %.3g%s | %s%.3g / %.3g / %.3g | %s |\n",
                r->stage, report_md(REPORT_TEXT, r->sequence), sb_stream_source_note(r), r->variant, r->in_flight,
                strcmp(r->runs, "in-turn") ? "" : ", in turn", failed ? "FAIL " : "", r->fps, stream_marks(r), gain,
                over, r->p50_ms, r->p99_ms, tail_mark(r), host, r->upload_ms, r->run_ms, r->fetch_ms, bound);
    }
    fprintf(md, "\n");
}
