/* options.c - table-driven option parsing and help (see options.h). */
#include "base/options.h"

#include <stdlib.h>
#include <string.h>

void sb_optparse_begin(sb_optparse *p, const sb_command *cmd, int argc, char **argv, sb_error *err)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    p->err = err;
}

static int option_index(const sb_command *cmd, const char *name, size_t len)
{
    for (int i = 0; i < cmd->noptions; i++) {
        const char *n = cmd->options[i].name;
        if (n && strlen(n) == len && strncmp(n, name, len) == 0)
            return i;
    }
    return -1;
}

static int refuse_unknown(sb_optparse *p, const char *arg)
{
    const char *names[64];
    int count = 0;
    for (int i = 0; i < p->cmd->noptions && count < 64; i++)
        if (p->cmd->options[i].name)
            names[count++] = p->cmd->options[i].name;
    size_t len = strcspn(arg + (arg[1] == '-' ? 2 : 1), "=");
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)len, arg + (arg[1] == '-' ? 2 : 1));
    const char *near = sb_nearest_name(word, names, count);
    if (near)
        p->status = sb_fail(p->err, SB_ERR_USAGE, "unknown option '%s' (did you mean --%s? see 'segbench %s --help')",
                            arg, near, p->cmd->name);
    else
        p->status = sb_fail(p->err, SB_ERR_USAGE, "unknown option '%s' (see 'segbench %s --help')", arg,
                            p->cmd->name);
    return SB_OPT_END;
}

int sb_optparse_next(sb_optparse *p)
{
    if (p->status)
        return SB_OPT_END;
    p->i++;
    if (p->i >= p->argc)
        return SB_OPT_END;
    const char *arg = p->argv[p->i];
    if (!p->options_done && strcmp(arg, "--") == 0) {
        p->options_done = 1;
        return sb_optparse_next(p);
    }
    if (p->options_done || arg[0] != '-' || arg[1] == '\0') {
        p->value = arg;
        return SB_OPT_ARG;
    }
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
        return SB_OPT_HELP;
    if (arg[1] != '-')
        return refuse_unknown(p, arg);

    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int idx = option_index(p->cmd, name, len);
    if (idx < 0 && !p->cmd->passthrough)
        return refuse_unknown(p, arg);
    if (idx < 0 && len >= sizeof p->key) {
        p->status = sb_fail(p->err, SB_ERR_USAGE, "option name too long: '%.40s...'", arg);
        return SB_OPT_END;
    }
    snprintf(p->key, sizeof p->key, "%.*s", (int)len, name);
    int takes_value = idx < 0 || p->cmd->options[idx].value != NULL;
    if (!takes_value) {
        if (eq) {
            p->status = sb_fail(p->err, SB_ERR_USAGE, "option --%s takes no value", p->key);
            return SB_OPT_END;
        }
        p->value = NULL;
        return idx;
    }
    if (eq) {
        p->value = eq + 1;
    } else if (p->i + 1 < p->argc) {
        p->value = p->argv[++p->i];
    } else {
        p->status = sb_fail(p->err, SB_ERR_USAGE, "option --%s needs a value%s%s%s", p->key, idx >= 0 ? " (" : "",
                            idx >= 0 ? p->cmd->options[idx].value : "", idx >= 0 ? ")" : "");
        return SB_OPT_END;
    }
    return idx < 0 ? SB_OPT_OTHER : idx;
}

sb_status sb_optparse_unexpected(sb_optparse *p)
{
    return p->status = sb_fail(p->err, SB_ERR_USAGE, "'%s' is not taken here (see 'segbench %s --help')",
                               p->i < p->argc ? p->argv[p->i] : "?", p->cmd->name);
}

int sb_command_wants_help(const sb_command *cmd, int argc, char **argv)
{
    sb_optparse p;
    sb_error scratch;
    sb_optparse_begin(&p, cmd, argc, argv, &scratch);
    for (;;) {
        int o = sb_optparse_next(&p);
        if (o == SB_OPT_HELP)
            return 1;
        if (o == SB_OPT_END) {
            if (!p.status)
                return 0;
            p.status = SB_OK;     /* a bad option: keep looking past it */
        }
    }
}

void sb_command_help(const sb_command *cmd, FILE *fp)
{
    fprintf(fp, "usage: segbench %s %s\n\n%s\n", cmd->name, cmd->synopsis, cmd->summary);
    if (cmd->details)
        fprintf(fp, "\n%s", cmd->details);
    fprintf(fp, "\noptions:\n");
    int width = 10;
    for (int i = 0; i < cmd->noptions; i++) {
        const sb_option *o = &cmd->options[i];
        if (!o->name)
            continue;
        int w = 2 + (int)strlen(o->name) + (o->value ? 1 + (int)strlen(o->value) : 0);
        if (w > width && w <= 26)
            width = w;
    }
    for (int i = 0; i < cmd->noptions; i++) {
        const sb_option *o = &cmd->options[i];
        if (!o->name)
            continue;
        char lhs[96];
        snprintf(lhs, sizeof lhs, "--%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
        if ((int)strlen(lhs) > width)
            fprintf(fp, "  %s\n  %-*s  ", lhs, width, "");
        else
            fprintf(fp, "  %-*s  ", width, lhs);
        fprintf(fp, "%s", o->help);
        if (o->def)
            fprintf(fp, " (default: %s)", o->def);
        fputc('\n', fp);
    }
    fprintf(fp, "  %-*s  this help\n", width, "-h, --help");
    fprintf(fp, "\nexit status: %s\n", cmd->exit_codes ? cmd->exit_codes : "0 success; 2 usage or input error; 130 interrupted");
}

/* Edit distance with swapped neighbours as one edit (optimal string
 * alignment), capped: enough to tell a typo from another word ("rnu" is
 * one edit from "run", as a typist sees it, not Levenshtein's two). */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int before[64] = { 0 }, prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && before[j - 2] + 1 < cur[j])
                cur[j] = before[j - 2] + 1;
        }
        memcpy(before, prev, sizeof(int) * (lb + 1));
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

const char *sb_nearest_name(const char *word, const char *const *names, int count)
{
    const char *best = NULL;
    int best_d = 99;
    size_t wl = strlen(word);
    for (int i = 0; i < count; i++) {
        int d = edit_distance(word, names[i]);
        if (wl >= 3 && strncmp(names[i], word, wl) == 0)
            d = d < 1 ? d : 1;              /* a prefix: "--budg" means --budget */
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    /* a typo: at most 2 edits, and fewer than a third of the word */
    return best && best_d <= 2 && (size_t)best_d * 3 <= wl + 2 ? best : NULL;
}
