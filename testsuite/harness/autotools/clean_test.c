/* The same two READs into two different buffers: nothing to report. */
#include "two_reads.h"

static char buf1[4096], buf2[4096];

int main(void)
{
	return two_reads(buf1, buf2, sizeof(buf1));
}
