"""An image (a photo or scan of a page; a multi-page TIFF) becomes an image-only PDF, which
the PDF road then reads with OCR like any scanned page.

Pillow decodes and writes the PDF (one page per frame, the image at its own resolution, or
at 300 dpi when it records none); the image is never scaled here, so OCR sees every pixel.
"""

from __future__ import annotations

from io import BytesIO

from ctxmill.errors import InputRefused
from ctxmill.limits import IMAGE_MAX_FRAMES as MAX_FRAMES
from ctxmill.limits import IMAGE_MAX_PIXELS as MAX_PIXELS  # per frame: larger is a decompression bomb


def image_to_pdf(data: bytes, label: str = "input") -> bytes:
    try:
        from PIL import Image, ImageSequence
    except ImportError:  # pragma: no cover - Pillow is a dependency
        raise InputRefused(f"{label}: reading images needs Pillow (pip install Pillow)") from None
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        im = Image.open(BytesIO(data))
        pages = []
        for n, frame in enumerate(ImageSequence.Iterator(im)):
            if n >= MAX_FRAMES:
                raise InputRefused(f"{label}: more than {MAX_FRAMES} pages in one image file (IMAGE_MAX_FRAMES)")
            dpi = frame.info.get("dpi") or (300, 300)
            page = frame.convert("L" if frame.mode in ("1", "L", "LA", "I;16", "I") else "RGB")
            page.info["dpi"] = dpi
            pages.append(page)
    except InputRefused:
        raise
    except Image.DecompressionBombError:
        raise InputRefused(f"{label}: image larger than {MAX_PIXELS:,} pixels (IMAGE_MAX_PIXELS)") from None
    except Exception as exc:  # a truncated or damaged image
        raise InputRefused(f"{label}: the image could not be read ({type(exc).__name__}: {exc})") from None
    if not pages:
        raise InputRefused(f"{label}: the image holds no picture")
    out = BytesIO()
    first, rest = pages[0], pages[1:]
    res = float(first.info["dpi"][0] or 300)
    first.save(out, "PDF", save_all=True, append_images=rest, resolution=res)
    return out.getvalue()
