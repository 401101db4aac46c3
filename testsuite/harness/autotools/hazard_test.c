/* Two READs in flight at once into the SAME buffer: uringcheck reports an
 * overlap, so this test fails under the checker (and passes without it). */
#include "two_reads.h"

static char buf[4096];

int main(void)
{
	return two_reads(buf, buf, sizeof(buf));
}
