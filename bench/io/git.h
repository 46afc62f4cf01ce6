/* git.h - what git says about this repository, asked without a shell:
 * a file's text at a commit (the code identities of old rows,
 * code_ids.c) and the commits that changed a folder (the history of a
 * machine's runs of record, run_history.c). */
#ifndef SEGBENCH_IO_GIT_H
#define SEGBENCH_IO_GIT_H

/* git run here with argv (argv[0] "git", NULL-terminated; names go as
 * arguments, never as shell text): its standard output, NUL-terminated,
 * for the caller to free; NULL when git is missing, fails (not a
 * repository, an unknown commit, no such file) or memory runs out. */
char *sb_git_output(char *const argv[]);

/* `git show COMMIT:PATH`: the file's text at that commit, or NULL. */
char *sb_git_show(const char *commit, const char *path);

/* Many files at once, one git process (`git cat-file --batch`): texts[i]
 * the text of specs[i] ("COMMIT:PATH"), NUL-terminated, for the caller to
 * free, or NULL where git has no such file.  0, or -1 (every texts[i]
 * NULL) when git cannot be run or answers what it should not. */
int sb_git_show_many(const char *const *specs, int n, char **texts);

#endif
