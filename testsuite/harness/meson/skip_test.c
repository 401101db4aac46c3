/* Exits 77, the "skipped" status of automake, meson (and ctest with
 * SKIP_RETURN_CODE 77); uringcheck passes it through unchanged. */
#include <stdio.h>

int main(void)
{
	puts("skipping: nothing to test here");
	return 77;
}
