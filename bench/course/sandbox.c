/* sandbox.c - bubblewrap around a student's build and grade (sandbox.h). */
#define _DEFAULT_SOURCE
#include "course/sandbox.h"

#include "segbench/spawn.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

sb_status grade_sandbox_find(grade_sandbox *s, sb_error *err)
{
    s->bwrap[0] = '\0';
    char path[SANDBOX_PATH];
    if (!sb_find_program("bwrap", path, sizeof path))
        return sb_fail(err, SB_ERR_USAGE, "grading a class runs each student's code in a sandbox, and bubblewrap is "
                       "not installed: apt-get install bubblewrap (make does it as root), or pass --no-sandbox to run "
                       "their code as you, with your files in its reach");
    /* the smallest sandbox of the kind grading makes: it fails where user
     * namespaces are not allowed (some containers, hardened kernels) */
    char *probe[] = { path, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--new-session", "--",
                      "true", NULL };
    int rc = sb_spawn(probe, NULL, "/dev/null");
    if (rc != 0)
        return sb_fail(err, SB_ERR_USAGE, "%s cannot make a sandbox here (exit %d: are unprivileged user namespaces "
                       "allowed? sysctl kernel.unprivileged_userns_clone=1), or pass --no-sandbox to run the students' "
                       "code as you, with your files in its reach", path, rc);
    snprintf(s->bwrap, sizeof s->bwrap, "%s", path);
    return SB_OK;
}

static int add(sandbox_argv *out, const char *arg)
{
    if (out->n >= SANDBOX_ARGS - 1)
        return 0;
    out->v[out->n++] = (char *)arg;
    return 1;
}

/* The GPU's device files (/dev/nvidia*), bound into the sandbox's /dev. */
static void add_gpu_devices(sandbox_argv *out, int *ok)
{
    DIR *d = opendir("/dev");
    struct dirent *e;
    int k = 0;
    while (d && (e = readdir(d)) && k < SANDBOX_DEVICES)
        if (!strncmp(e->d_name, "nvidia", 6) && strlen(e->d_name) < 40) {
            snprintf(out->devices[k], sizeof out->devices[k], "/dev/%s", e->d_name);
            *ok = *ok && add(out, "--dev-bind-try") && add(out, out->devices[k]) && add(out, out->devices[k]);
            k++;
        }
    if (d)
        closedir(d);
}

sb_status grade_sandbox_wrap(const grade_sandbox *s, const sandbox_view *view, char *const cmd[], sandbox_argv *out,
                             sb_error *err)
{
    out->n = 0;
    int ok = 1;
    if (s->bwrap[0]) {
        const char *const fixed[] = { s->bwrap, "--die-with-parent", "--new-session", "--unshare-all",
                                      "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp" };
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            ok = ok && add(out, fixed[i]);
        add_gpu_devices(out, &ok);
        for (int i = 0; i < view->nhide; i++)      /* the class: empty inside */
            ok = ok && add(out, "--tmpfs") && add(out, view->hide[i]);
        for (int i = 0; i < view->nshow; i++)      /* the teacher's images, wherever they are */
            ok = ok && add(out, "--ro-bind") && add(out, view->show[i]) && add(out, view->show[i]);
        for (int i = 0; i < view->ncover; i++)     /* within them: the teacher's build, its history */
            ok = ok && add(out, "--tmpfs") && add(out, view->cover[i]);
        for (int i = 0; i < view->nblank; i++)     /* the solution's files: empty */
            ok = ok && add(out, "--ro-bind") && add(out, "/dev/null") && add(out, view->blank[i]);
        ok = ok && add(out, "--bind") && add(out, view->own) && add(out, view->own) && add(out, "--chdir") &&
             add(out, view->own) && add(out, "--");
    }
    for (int i = 0; cmd[i]; i++)
        ok = ok && add(out, cmd[i]);
    out->v[out->n] = NULL;
    return ok ? SB_OK : sb_fail(err, SB_ERR_USAGE, "a student's command line is too long for the sandbox");
}
