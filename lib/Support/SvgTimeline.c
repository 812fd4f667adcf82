/* A line chart of bytes over positions, as a standalone SVG document, and
 * documents of such charts stacked, one per function. */
#include "Support/Support.h"

enum { chartWidth = 800, chartHeight = 360 };

/* Escapes text for SVG (XML) content. */
static void appendEscaped(MemoptStringBuffer *out, const char *text) {
  for (const char *p = text; *p; ++p) {
    switch (*p) {
    case '&': memoptStringBufferAppendCString(out, "&amp;"); break;
    case '<': memoptStringBufferAppendCString(out, "&lt;"); break;
    case '>': memoptStringBufferAppendCString(out, "&gt;"); break;
    case '"': memoptStringBufferAppendCString(out, "&quot;"); break;
    default: memoptStringBufferAppend(out, p, 1);
    }
  }
}

static double mebibytes(unsigned long long bytes) { return (double)bytes / 1048576.0; }

void memoptSvgTimeline(const char *title, const MemoptTimelineSeries *series, size_t seriesCount,
                       unsigned long long budget, MemoptStringBuffer *out) {
  const double width = chartWidth, height = chartHeight, left = 80, right = 160, top = 40, bottom = 50;
  size_t positions = 1;
  unsigned long long maximum = budget;
  for (size_t s = 0; s < seriesCount; ++s) {
    if (series[s].count > positions)
      positions = series[s].count;
    for (size_t i = 0; i < series[s].count; ++i)
      if (series[s].values[i] > maximum)
        maximum = series[s].values[i];
  }
  if (maximum == 0)
    maximum = 1;
  double plotWidth = width - left - right, plotHeight = height - top - bottom;
  double xStep = positions > 1 ? plotWidth / (double)(positions - 1) : 0;
  memoptStringBufferAppendFormat(
      out,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" "
      "font-size=\"15\">",
      width, height, left);
  appendEscaped(out, title);
  memoptStringBufferAppendFormat(
      out,
      "</text>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n"
      "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n"
      "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">op position</text>\n"
      "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.2f MiB</text>\n"
      "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">0</text>\n"
      "<text x=\"%.0f\" y=\"%.0f\">%zu</text>\n",
      left, top + plotHeight, left + plotWidth, top + plotHeight, left, top, left,
      top + plotHeight, left + plotWidth / 2, height - 12, left - 6, top + 4, mebibytes(maximum),
      left - 6, top + plotHeight, left + plotWidth - 10, top + plotHeight + 16, positions - 1);
  if (budget) {
    double y = top + plotHeight * (1 - (double)budget / (double)maximum);
    memoptStringBufferAppendFormat(
        out,
        "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"gray\" "
        "stroke-dasharray=\"6 4\"/>\n<text x=\"%.0f\" y=\"%.1f\" fill=\"gray\">budget %.2f "
        "MiB</text>\n",
        left, y, left + plotWidth, y, left + plotWidth + 6, y + 4, mebibytes(budget));
  }
  for (size_t s = 0; s < seriesCount; ++s) {
    memoptStringBufferAppendFormat(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                                   series[s].color);
    for (size_t i = 0; i < series[s].count; ++i)
      memoptStringBufferAppendFormat(
          out, "%s%.1f,%.1f", i ? " " : "", left + xStep * (double)i,
          top + plotHeight * (1 - (double)series[s].values[i] / (double)maximum));
    memoptStringBufferAppendFormat(out, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">",
                                   left + plotWidth + 6, top + 16 + 18 * (double)s, series[s].color);
    appendEscaped(out, series[s].name);
    memoptStringBufferAppendCString(out, "</text>\n");
  }
  memoptStringBufferAppendCString(out, "</svg>\n");
}

bool memoptSvgTimelinesWriteFile(const char *path, const MemoptFunctionTimeline *charts,
                                 size_t count, MemoptStringBuffer *error) {
  MemoptStringBuffer svg = memoptStringBufferCreate();
  memoptStringBufferAppendFormat(&svg,
                                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                                 "height=\"%zu\">\n",
                                 chartWidth, (size_t)chartHeight * (count ? count : 1));
  MemoptStringBuffer title = memoptStringBufferCreate();
  for (size_t i = 0; i < count; ++i) {
    memoptStringBufferClear(&title);
    memoptStringBufferAppendFormat(&title, "@%s: live activation bytes by op position",
                                   charts[i].function);
    memoptStringBufferAppendFormat(&svg, "<g transform=\"translate(0 %zu)\">\n",
                                   (size_t)chartHeight * i);
    memoptSvgTimeline(title.data, charts[i].series, charts[i].seriesCount, charts[i].budget, &svg);
    memoptStringBufferAppendCString(&svg, "</g>\n");
  }
  memoptStringBufferDestroy(&title);
  memoptStringBufferAppendCString(&svg, "</svg>\n");
  bool ok = memoptFileWriteOutput(path, svg.data, svg.length, error);
  memoptStringBufferDestroy(&svg);
  return ok;
}
