/*
 * The error names and the run-time version: the small pieces every module
 * and every embedder shares.
 */
#include <string.h>

#include <loadscope/common.h>

LSC_API const char *lsc_strerror(int err)
{
	if (err > 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case LSC_E_NODEVICE:
		return "no GPU device";
	case LSC_E_NORUNTIME:
		return "GPU runtime unavailable";
	case LSC_E_GPU:
		return "GPU runtime error";
	case LSC_E_HASH:
		return "content hash mismatch";
	case LSC_E_CHANGED:
		return "file changed during the load";
	case LSC_E_SHORT:
		return "file shorter than the manifest";
	default:
		break;
	}
	if (err > LSC_E_BASE)
		return strerrordesc_np(-err) ? strerrordesc_np(-err) : "unknown error";
	return "unknown loadscope error";
}

LSC_API const char *lsc_version_string(void)
{
	return LSC_VERSION_STRING;
}

LSC_API int lsc_version_number(void)
{
	return LSC_VERSION_NUMBER;
}
