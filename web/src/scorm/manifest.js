// imsmanifest.xml for a one-SCO package: SCORM 1.2 (IMS CP 1.1.2 with ADL's
// adlcp 1.2) or SCORM 2004 4th Edition (IMS CP 1.1.4, adlcp/adlseq/adlnav 1.3,
// imsss). One organization with one item, launching one resource: the quiz's
// launch page, with every file of the package listed. The teacher's pass mark
// (percent) goes where each version's LMS reads it: adlcp:masteryscore (0..100,
// compared with cmi.core.score.raw) for 1.2, the primary objective's
// minNormalizedMeasure (0..1, the LMS's cmi.scaled_passing_score) for 2004. The
// schema files (.xsd) are not bundled: LMSs read the manifest without them.

/** Text as XML writes it in an element or a quoted attribute. */
export const xml = (s) =>
  String(s)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');

const NS = {
  1.2: {
    manifest:
      'xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd ' +
      'http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd ' +
      'http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd"',
    schemaversion: '1.2',
    scormType: 'adlcp:scormtype',
  },
  2004: {
    manifest:
      'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" ' +
      'xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" ' +
      'xmlns:imsss="http://www.imsglobal.org/xsd/imsss" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd ' +
      'http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd ' +
      'http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd"',
    schemaversion: '2004 4th Edition',
    scormType: 'adlcp:scormType',
  },
};

/**
 * The manifest's text.
 * @param {{version: '1.2'|'2004', identifier: string, title: string, launch: string, files: string[],
 *   passMark: number|null}} options identifier: an XML name (letters, digits, '-', '_', '.'), unique
 *   to the package; files: every file of the package but the manifest, the launch page among them;
 *   passMark: the pass mark in percent (0..100), null for none
 */
export function manifestXml({ version, identifier, title, launch, files, passMark }) {
  const ns = NS[version];
  if (!ns) throw new Error(`unknown SCORM version ${JSON.stringify(version)}`);
  if (!/^[A-Za-z_][\w.-]*$/.test(identifier)) throw new Error(`bad manifest identifier ${identifier}`);
  if (!files.includes(launch)) throw new Error(`the launch page ${launch} is not among the files`);
  if (passMark !== null && !(Number.isFinite(passMark) && passMark >= 0 && passMark <= 100))
    throw new Error(`pass mark ${passMark}: use 0..100 or null`);
  let itemExtra = '';
  if (passMark !== null && version === '1.2')
    itemExtra = `\n        <adlcp:masteryscore>${passMark}</adlcp:masteryscore>`;
  if (passMark !== null && version === '2004')
    itemExtra = `
        <imsss:sequencing>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="mastery" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>${Number((passMark / 100).toFixed(4))}</imsss:minNormalizedMeasure>
            </imsss:primaryObjective>
          </imsss:objectives>
        </imsss:sequencing>`;
  const fileList = files.map((f) => `      <file href="${xml(f)}"/>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${identifier}" version="1" ${ns.manifest}>
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>${ns.schemaversion}</schemaversion>
  </metadata>
  <organizations default="${identifier}-org">
    <organization identifier="${identifier}-org">
      <title>${xml(title)}</title>
      <item identifier="${identifier}-item" identifierref="${identifier}-sco" isvisible="true">
        <title>${xml(title)}</title>${itemExtra}
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="${identifier}-sco" type="webcontent" ${ns.scormType}="sco" href="${xml(launch)}">
${fileList}
    </resource>
  </resources>
</manifest>
`;
}
