/* Appended by t/csmith.sh to a csmith or t/fpgen.py program, compiled for
 * nvptx64 with -Dmain=prog_main -Dstrcmp=prog_strcmp and PROG_ARGS set to
 * main's arguments: the program becomes device code whose kernel runs main,
 * with nothing left for ptxas to resolve but vprintf. */
int
prog_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

__attribute__((nvptx_kernel)) void
prog_kernel(void)
{
	char *argv[] = { "prog", 0 };

	(void)argv;
	prog_main(PROG_ARGS);
}
