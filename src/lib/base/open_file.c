#include <errno.h>
#include <sys/stat.h>

#include "open_file.h"

FILE *ha_open_input(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	return f;
}
